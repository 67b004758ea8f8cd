/**
 * The result of `docchat_search` as a model reads it. Many hosts hand the model the text content
 * alone, so each passage's line carries everything the next call needs: the file name to cite,
 * the score, and the arguments of `docchat_read_file` as JSON to copy. For clients of protocol
 * revision 2025-06-18 and later, one `resource_link` per file lets a host (VS Code since 1.105)
 * offer the document and read it by URI (earlier revisions have no such content). No `vscode` import.
 */
import type { ContentBlock } from '@modelcontextprotocol/server';
import { withoutRepeats } from '../chatCore/snippet';
import { fileResourceUri } from './resourceUris';

export interface SearchHit {
  readonly file_id: string;
  readonly file_name: string;
  readonly store_id: string;
  readonly store_name: string;
  readonly score: number;
  readonly content: string;
}

/** Of a passage's line, what `docchat_read_file` looks for as `near`: at most these words and characters. */
const NEAR_WORDS = 12;
const NEAR_CHARS = 120;
const HEADING_OR_RULE = /^(?:#{1,6}\s|`{3,}|~{3,}|\|?\s*:?-{3,})/;
/** A table row: converted PDFs and sheets repeat a header row on every page. */
const TABLE_ROW = /^\|.*\|$/;

/**
 * The line of a passage that finds it in its file: the longest of its lines of prose (else of its
 * table rows) that is not a heading (a chunk may open with its section's heading, far above its
 * own text), a fence or a table rule, cut to its first NEAR_WORDS words and NEAR_CHARS characters
 * (a line of base64 or of Chinese has no spaces), at a space when there is one. Undefined for a
 * passage of no such line.
 */
export function passageLine(content: string): string | undefined {
  let prose = '';
  let row = '';
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trim();
    if (HEADING_OR_RULE.test(line)) continue;
    if (TABLE_ROW.test(line)) {
      if (line.length > row.length) row = line;
    } else if (line.length > prose.length) prose = line;
  }
  const best = (prose || row).split(/\s+/).slice(0, NEAR_WORDS).join(' ');
  const chars = Array.from(best);
  if (chars.length <= NEAR_CHARS) return best || undefined;
  const cut = chars.slice(0, NEAR_CHARS).join('');
  const space = cut.lastIndexOf(' ');
  return space > 0 ? cut.slice(0, space) : cut;
}

/**
 * What a model copies to read a hit in its file: the arguments of `docchat_read_file`, with the
 * line that takes it to the page holding the passage.
 */
export function readFileArguments(hit: Pick<SearchHit, 'store_id' | 'file_id' | 'content'>): string {
  const near = passageLine(hit.content);
  return JSON.stringify({ store: hit.store_id, file_id: hit.file_id, ...(near ? { near } : {}) });
}

/** `links`: the result also holds a `resource_link` per file (clients of protocol revision 2025-06-18 and later). */
export function searchResultText(store: { id: string; name: string }, query: string, hits: readonly SearchHit[], links = true): string {
  const where = `the vector store "${store.name}" (store id ${store.id})`;
  if (!hits.length) {
    return `No passage in ${where} is relevant to "${query}": the documents do not cover it. Say so rather than citing anything from them.`;
  }
  const body = hits
    .map(
      (hit, i) =>
        `[${i + 1}] ${hit.file_name} (score ${hit.score.toFixed(2)}) · read: ${readFileArguments(hit)}\n${withoutRepeats(hit.content).trim()}`,
    )
    .join('\n\n');
  return (
    `${hits.length} passage${hits.length === 1 ? '' : 's'} from ${where} matching "${query}", best first. ` +
    'Cite the file names. To read a passage in its file, call docchat_read_file with the arguments after "read:" (they open the page holding it)' +
    (links ? ', or read the resource linked to the file.\n\n' : '.\n\n') +
    body
  );
}

/** One `resource_link` per file, in the order the files first appear among the hits. */
export function searchResourceLinks(hits: readonly SearchHit[]): ContentBlock[] {
  const seen = new Set<string>();
  const links: ContentBlock[] = [];
  for (const hit of hits) {
    const uri = fileResourceUri(hit.store_id, hit.file_id);
    if (seen.has(uri)) continue;
    seen.add(uri);
    links.push({
      type: 'resource_link',
      uri,
      name: hit.file_name,
      title: hit.file_name,
      description: `The converted text of ${hit.file_name} in the DocChat vector store "${hit.store_name}".`,
      mimeType: 'text/markdown',
    });
  }
  return links;
}
