/**
 * Markdown for gateway-tool answers. Text from the web is untrusted: it is escaped where it goes
 * into link text, and only http(s) URLs become links. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import type { ResearchTask, WebCrawlResponse, WebSearchResponse } from '../../api/gateway/schemas';

/** A web page an answer is based on. */
export interface WebSource {
  readonly number: number;
  readonly title: string;
  readonly url: string;
}

/** A crawled page's text, to add to the conversation as context. */
export interface CrawledPage {
  readonly url: string;
  readonly title: string;
  readonly content: string;
}

export interface ToolAnswer {
  /** The whole answer, ready to render (sources listed at the end). */
  readonly markdown: string;
  /** The answer without the sources list, for a view that lists `sources` itself. */
  readonly body: string;
  readonly sources: readonly WebSource[];
  /** `/crawl` only: the pages that could be fetched. */
  readonly pages?: readonly CrawledPage[];
}

/** How much of each search result / crawled page the answer shows (the full text goes to context). */
export const SNIPPET_CHARS = 400;

/** Escapes the characters that would start markdown syntax inside inline text. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_{}[\]()<>#+!|~]/g, (c) => `\\${c}`)
    .replace(/\s+/g, ' ')
    .trim();
}

export function isWebUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `[title](url)` for http(s) URLs; anything else as inert code text. */
export function markdownLink(title: string, url: string): string {
  const text = escapeMarkdown(title || url) || escapeMarkdown(url);
  if (!isWebUrl(url)) {
    return `${text} (\`${url.replace(/`/g, "'")}\`)`;
  }
  return `[${text}](<${encodeURI(decodeURISafe(url)).replace(/[<>]/g, encodeURIComponent)}>)`;
}

function decodeURISafe(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/** Plain one-paragraph snippet: whitespace collapsed, cut at a word boundary. */
export function snippet(text: string, max = SNIPPET_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) {
    return flat;
  }
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${escapeMarkdown(line)}`)
    .join('\n');
}

export function sourcesSection(sources: readonly WebSource[]): string {
  if (!sources.length) {
    return '';
  }
  return `\n\n**${l10n.t('Sources')}**\n\n${sources.map((s) => `${s.number}. ${markdownLink(s.title, s.url)}`).join('\n')}`;
}

export function formatWebSearch(query: string, response: WebSearchResponse): ToolAnswer {
  const results = response.results;
  if (!results.length) {
    const none = l10n.t('No web results for “{0}”.', escapeMarkdown(query));
    return { markdown: none, body: none, sources: [] };
  }
  const sources: WebSource[] = results.map((r, i) => ({ number: i + 1, title: r.title || r.url, url: r.url }));
  const body = results
    .map((r, i) => {
      const text = snippet(r.content);
      return `**${i + 1}. ${markdownLink(r.title || r.url, r.url)}**${text ? `\n\n${quote(text)}` : ''}`;
    })
    .join('\n\n');
  const text = `${l10n.t('Web results for “{0}”:', escapeMarkdown(query))}\n\n${body}`;
  return { markdown: `${text}${sourcesSection(sources)}`, body: text, sources };
}

export function formatCrawl(response: WebCrawlResponse): ToolAnswer {
  const pages: CrawledPage[] = [];
  const lines: string[] = [];
  const sources: WebSource[] = [];
  for (const result of response.results) {
    const title = result.title || result.url;
    if (result.error || !result.content.trim()) {
      lines.push(
        `- ${result.error ? l10n.t('{0}: could not be fetched ({1}).', markdownLink(title, result.url), escapeMarkdown(result.error)) : l10n.t('{0}: could not be fetched (no text).', markdownLink(title, result.url))}`,
      );
      continue;
    }
    pages.push({ url: result.url, title, content: result.content });
    sources.push({ number: sources.length + 1, title, url: result.url });
    const words = result.content.split(/\s+/).filter(Boolean).length;
    lines.push(
      `- ${l10n.t('{0}: added as context ({1} words).', markdownLink(title, result.url), words.toLocaleString('en-US'))}\n\n${quote(snippet(result.content, 200)).replace(/^/gm, '  ')}`,
    );
  }
  const head = pages.length
    ? response.results.length === 1
      ? l10n.t('Crawled 1 of 1 page; the text is added to this conversation as context.')
      : l10n.t('Crawled {0} of {1} pages; the text is added to this conversation as context.', pages.length, response.results.length)
    : l10n.t('None of the pages could be fetched.');
  const body = `${head}\n\n${lines.join('\n')}`;
  return { markdown: `${body}${sourcesSection(sources)}`, body, sources, pages };
}

/** The finished research task as an answer (its own markdown is the model's: kept as-is). */
export function formatResearch(topic: string, task: ResearchTask): ToolAnswer {
  const result = task.result;
  const sources: WebSource[] = (result?.sources ?? []).map((s, i) => ({ number: i + 1, title: s.title || s.url, url: s.url }));
  const content = result?.content?.trim() || l10n.t('The research on “{0}” finished without an answer.', escapeMarkdown(topic));
  return { markdown: `${content}${sourcesSection(sources)}`, body: content, sources };
}
