/**
 * Parses the chat panel's gateway-tool commands: `/web <query>`, `/crawl <url…>`,
 * `/research <topic>`. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { MAX_CRAWL_URLS } from '../api/gateway/limits';

export { MAX_CRAWL_URLS };

export type ToolCommand =
  | { readonly name: 'web'; readonly query: string }
  | { readonly name: 'crawl'; readonly urls: readonly string[] }
  | { readonly name: 'research'; readonly topic: string };

export type ToolCommandName = ToolCommand['name'];

export type ParsedToolCommand =
  { readonly ok: true; readonly command: ToolCommand } | { readonly ok: false; readonly name: ToolCommandName; readonly error: string };

export interface ToolCommandInfo {
  readonly name: ToolCommandName;
  readonly usage: string;
  readonly description: string;
}

/** For the panel's command suggestions and help text. */
export const TOOL_COMMANDS: readonly ToolCommandInfo[] = [
  { name: 'web', usage: '/web <query>', description: 'Search the web and show the results with their sources.' },
  { name: 'crawl', usage: '/crawl <url…>', description: 'Fetch web pages and add their text to the conversation as context.' },
  {
    name: 'research',
    usage: '/research <topic>',
    description: 'Start a web research task, show its progress, then its answer with sources.',
  },
];

/** The gateway crawls at most this many pages per request. */
/** Queries longer than this are refused by the gateway. */
export const MAX_TOOL_QUERY_CHARS = 10_000;

const COMMAND_PATTERN = /^\/(web|crawl|research)(?=\s|$)\s*([\s\S]*)$/i;

/** True when the text starts with one of the tool commands (so the panel routes it here). */
export function isToolCommand(text: string): boolean {
  return COMMAND_PATTERN.test(text.trimStart());
}

/**
 * Undefined when the text is not a tool command (an ordinary question, or another `/command`);
 * otherwise the command, or a message saying how to use it.
 */
export function parseToolCommand(text: string): ParsedToolCommand | undefined {
  const match = COMMAND_PATTERN.exec(text.trimStart());
  if (!match) {
    return undefined;
  }
  const name = match[1]!.toLowerCase() as ToolCommandName;
  const argument = match[2]!.trim();
  const usage = TOOL_COMMANDS.find((c) => c.name === name)!.usage;
  if (!argument) {
    return { ok: false, name, error: l10n.t('Usage: {0}', usage) };
  }
  if (name === 'crawl') {
    return parseCrawl(argument);
  }
  if (argument.length > MAX_TOOL_QUERY_CHARS) {
    return {
      ok: false,
      name,
      error:
        name === 'web'
          ? l10n.t('The query is too long (at most {0} characters).', MAX_TOOL_QUERY_CHARS.toLocaleString('en-US'))
          : l10n.t('The topic is too long (at most {0} characters).', MAX_TOOL_QUERY_CHARS.toLocaleString('en-US')),
    };
  }
  return { ok: true, command: name === 'web' ? { name, query: argument } : { name, topic: argument } };
}

function parseCrawl(argument: string): ParsedToolCommand {
  const urls: string[] = [];
  for (const word of argument.split(/[\s,]+/).filter(Boolean)) {
    const url = normaliseWebUrl(word);
    if (!url) {
      return { ok: false, name: 'crawl', error: l10n.t('Not an http(s) URL: {0}. Usage: /crawl <url…>', word) };
    }
    if (!urls.includes(url)) {
      urls.push(url);
    }
  }
  if (urls.length > MAX_CRAWL_URLS) {
    return { ok: false, name: 'crawl', error: l10n.t('At most {0} URLs at a time (got {1}).', MAX_CRAWL_URLS, urls.length) };
  }
  return { ok: true, command: { name: 'crawl', urls } };
}

/**
 * An absolute http(s) URL, or undefined. `example.com/page` is taken as https; angle brackets
 * (as in `<https://…>`) are dropped.
 */
export function normaliseWebUrl(text: string): string | undefined {
  const trimmed = text.replace(/^<|>$/g, '');
  const candidate = /^[a-z][a-z0-9+.-]*:/i.test(trimmed)
    ? trimmed
    : /^[\w-]+(\.[\w-]+)+(:\d+)?(\/|$)/.test(trimmed)
      ? `https://${trimmed}`
      : undefined;
  if (!candidate) {
    return undefined;
  }
  try {
    const url = new URL(candidate);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname ? url.href : undefined;
  } catch {
    return undefined;
  }
}
