/**
 * Text the `@docchat` participant, the search tool and the MCP server produce from search
 * passages: the `/search` listing, the tool result for a language model, the sources list, and
 * resolving the store a tool call names. No `vscode` import.
 */
import type { PassageSource } from './protocol';

export interface StoreRef {
  readonly id: string;
  readonly name: string;
}

/** How a passage is named: its file name, or the file id when the name is unknown. */
export function passageTitle(p: PassageSource): string {
  return p.filename || p.fileId;
}

/**
 * Plain text for a language model: numbered passages with file, store (when several were
 * searched) and score. No passage: an explicit "not covered", so the model does not guess.
 */
export function toolResultText(stores: readonly StoreRef[], query: string, passages: readonly PassageSource[]): string {
  const named = stores.map((s) => `"${s.name}"`).join(', ');
  const where = stores.length === 1 ? `the vector store ${named}` : `the vector stores ${named}`;
  if (!passages.length) {
    return `No passage in ${where} is relevant to "${query}": the documents do not cover it. Say so rather than citing anything from them.`;
  }
  const several = stores.length > 1;
  const body = passages
    .map(
      (p, i) =>
        `[${i + 1}] ${passageTitle(p)}${several ? ` in "${p.storeName ?? p.storeId}"` : ''} (score ${(p.score ?? 0).toFixed(2)})\n${p.content.trim()}`,
    )
    .join('\n\n');
  return `${passages.length} passage${passages.length === 1 ? '' : 's'} from ${where} matching "${query}". Cite them by number.\n\n${body}`;
}

/** Blockquote a passage for markdown, one `>` per line, code fences neutralised. */
export function quotePassage(content: string, maxChars = 600): string {
  const text = content.trim().length > maxChars ? `${content.trim().slice(0, maxChars).trimEnd()}…` : content.trim();
  return text
    .replace(/```/g, 'ˋˋˋ')
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/**
 * Finds the store a tool call names: by id, then exact name, then case-insensitive name. Names
 * that several stores share resolve to none (the model must then use the id).
 */
export function resolveStore(stores: readonly StoreRef[], wanted: string): StoreRef | undefined {
  const text = wanted.trim();
  if (!text) {
    return undefined;
  }
  const byId = stores.find((s) => s.id === text);
  if (byId) {
    return byId;
  }
  const exact = stores.filter((s) => s.name === text);
  if (exact.length === 1) {
    return exact[0];
  }
  const folded = stores.filter((s) => s.name.toLowerCase() === text.toLowerCase());
  return exact.length === 0 && folded.length === 1 ? folded[0] : undefined;
}
