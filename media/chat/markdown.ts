/**
 * Markdown for model output, which is untrusted: raw HTML off, links limited to http(s),
 * no images (shown as links the user may open), everything sanitized by DOMPurify. Code blocks get
 * highlighting and a toolbar (copy, insert at cursor); `[n]` citations become citation links.
 * highlight.js is not part of the webview's script: a code block rendered before it is loaded is
 * marked pending, asks for it, and is highlighted in place once it arrives (`highlightPending`).
 *
 * Works in the webview and in Node tests (jsdom): the DOMPurify instance and the document are
 * passed in.
 */
import * as l10n from '@vscode/l10n';
import MarkdownIt from 'markdown-it';
import type { Config, DOMPurify } from 'dompurify';
import { citationAt } from '../../src/chatCore/citations';
import { isOpenableLink } from '../../src/chatCore/links';

/** Per-answer render environment. */
export type MarkdownEnv = {
  /** Number of sources the answer may cite; `[n]` with n outside 1..sourceCount stays text. */
  sourceCount: number;
  /** What source n is (its file and section), at index n - 1: the citation link's name. */
  sourceLabels?: readonly string[];
};

type Markdown = MarkdownIt.MarkdownIt;
type Token = MarkdownIt.Token;

const SAFE_LINK = /^(?:https?:|mailto:)/i;
/** A URL that starts with a scheme (`javascript:`, `C:` too), or a protocol-relative `//host`. */
const HAS_SCHEME = /^(?:[a-z][a-z\d+.-]*:|\/\/|\\\\)/i;
/**
 * A line break written as HTML in a table cell (`<br>`, `<br/>`, `<br />`): a cell has no other way
 * to hold two lines, so converters and language models write one there.
 */
const CELL_BREAK = /<br\s*\/?>/i;

/** The part of highlight.js the renderer uses. */
export interface Highlighter {
  getLanguage(name: string): unknown;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

/** Where the renderer finds highlight.js: loaded, or asked for at the first code block that needs it. */
export interface HighlighterSource {
  readonly current: Highlighter | undefined;
  /** Starts loading highlight.js (once); `highlightPending` then finishes the blocks rendered meanwhile. */
  request(): void;
}

/** A source that has highlight.js at hand (Node tests, benchmarks). */
export function loadedHighlighter(highlighter: Highlighter): HighlighterSource {
  return { current: highlighter, request: () => undefined };
}

/** The class of a code block with a language, rendered before highlight.js was loaded. */
export const HIGHLIGHT_PENDING = 'hljs-pending';

export function createMarkdownIt(highlighter: HighlighterSource): Markdown {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  // Reference definitions may appear after their use, so a finished block could change once
  // more text streams in; without them every block renders the same alone as in the whole.
  md.disable('reference');
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
  // A link with no scheme ("docs/network.md", "#usage": a document's own links, quoted) is parsed
  // too, so it shows as its text (the sanitizer's hook keeps no target the host would refuse)
  // instead of as its brackets and path. Any other scheme (javascript:, file:, data:, command:…)
  // is no link at all.
  md.validateLink = (url) => SAFE_LINK.test(url.trim()) || !HAS_SCHEME.test(url.trim());

  md.inline.ruler.before('link', 'citation', (state, silent) => {
    const env = state.env as Partial<MarkdownEnv> | undefined;
    const match = citationAt(state.src, state.pos, env?.sourceCount ?? 0);
    if (!match) {
      return false;
    }
    if (!silent) {
      const token = state.push('citation', '', 0);
      token.meta = { numbers: match.numbers };
      token.content = state.src.slice(state.pos, state.pos + match.length);
    }
    state.pos += match.length;
    return true;
  });
  // markdown-it aligns table cells with a style attribute. The webview's CSP allows no inline
  // styles, and Chromium reports one even in DOMPurify's parsing document before it is dropped;
  // a class carries the alignment instead.
  md.core.ruler.push('table_align_class', (state) => {
    for (const token of state.tokens) {
      if ((token.type !== 'th_open' && token.type !== 'td_open') || !token.attrs) continue;
      const align = /text-align:\s*(left|center|right)/.exec(String(token.attrGet('style') ?? ''))?.[1];
      token.attrs = token.attrs.filter(([name]) => name !== 'style');
      if (align) token.attrJoin('class', `md-align-${align}`);
    }
    return true;
  });
  // HTML is not rendered, but a table cell's `<br>` is a line break: shown as text it would read
  // as markup in the answer. Only in cells' text (not in a code span, not elsewhere).
  md.core.ruler.push('table_cell_breaks', (state) => {
    let inCell = false;
    for (const token of state.tokens) {
      if (token.type === 'th_open' || token.type === 'td_open') inCell = true;
      else if (token.type === 'th_close' || token.type === 'td_close') inCell = false;
      else if (inCell && token.type === 'inline' && token.children) {
        token.children = token.children.flatMap((child) => {
          if (child.type !== 'text' || !CELL_BREAK.test(child.content)) return [child];
          return child.content.split(new RegExp(CELL_BREAK.source, 'gi')).flatMap((part, i) => {
            const text = new state.Token('text', '', 0);
            text.content = part;
            return i ? [new state.Token('hardbreak', 'br', 0), text] : [text];
          });
        });
      }
    }
    return true;
  });
  const escape = md.utils.escapeHtml;
  md.renderer.rules.citation = (tokens, idx, _options, env) => {
    const numbers = (tokens[idx]!.meta as { numbers: number[] }).numbers;
    const labels = (env as Partial<MarkdownEnv> | undefined)?.sourceLabels;
    return numbers
      .map((n) => {
        const label = labels?.[n - 1];
        const name = escape(label ? l10n.t('Source {0}: {1}', n, label) : l10n.t('Source {0}', n));
        return `<a class="citation" data-citation="${n}" title="${name}" aria-label="${name}">[${n}]</a>`;
      })
      .join('');
  };

  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const src = String(token.attrGet('src') ?? '');
    const alt = self.renderInlineAsText(token.children ?? [], options, env) || l10n.t('image');
    // Never an <img>: a remote image would be fetched as soon as it renders.
    return `<a class="md-image" href="${escape(src)}" title="${escape(l10n.t('Image: {0}', src))}"><span class="codicon codicon-file-media" aria-hidden="true"></span>${escape(alt)}</a>`;
  };

  const codeBlock = (content: string, info: string) => {
    const lang = info.split(/\s+/)[0] ?? '';
    const hljs = highlighter.current;
    if (lang !== '' && !hljs) highlighter.request();
    const known = lang !== '' && hljs?.getLanguage(lang) !== undefined;
    const body = known ? hljs!.highlight(content, { language: lang, ignoreIllegals: true }).value : escape(content);
    const langClass = lang ? ` language-${escape(lang)}${hljs ? '' : ` ${HIGHLIGHT_PENDING}`}` : '';
    const label = lang ? `<span class="code-language">${escape(lang)}</span>` : '';
    const copy = escape(l10n.t('Copy'));
    const insert = escape(l10n.t('Insert at Cursor'));
    return (
      `<div class="code-block"><div class="code-toolbar">${label}` +
      `<button type="button" class="code-action" data-action="copy" title="${copy}" aria-label="${copy}"><span class="codicon codicon-copy" aria-hidden="true"></span></button>` +
      `<button type="button" class="code-action" data-action="insert" title="${insert}" aria-label="${insert}"><span class="codicon codicon-insert" aria-hidden="true"></span></button>` +
      `</div><pre><code class="hljs${langClass}">${body}</code></pre></div>\n`
    );
  };
  md.renderer.rules.fence = (tokens, idx) => {
    const token = tokens[idx]!;
    return codeBlock(token.content, md.utils.unescapeAll(token.info).trim());
  };
  md.renderer.rules.code_block = (tokens, idx) => codeBlock(tokens[idx]!.content, '');
  return md;
}

/** Tags and attributes model output never needs; DOMPurify's defaults minus these. */
const PURIFY_CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  // DOMPurify's default pattern with the schemes cut down to http(s) and mailto. It applies to
  // every attribute value, so plain values (`button`, `1`) must keep passing.
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
  FORBID_TAGS: ['style', 'img', 'svg', 'math', 'form', 'input', 'textarea', 'select', 'iframe', 'video', 'audio', 'source', 'picture'],
  FORBID_ATTR: ['style', 'srcset', 'target', 'formaction', 'action', 'xlink:href'],
  ALLOW_DATA_ATTR: false,
  ADD_ATTR: ['data-citation', 'data-action'],
  RETURN_DOM_FRAGMENT: true,
};

const hooked = new WeakSet<object>();
const configured = new WeakSet<object>();

/**
 * Gives `purify` the pipeline's configuration once. A configuration passed to each `sanitize` is
 * parsed again on every call (its allow-lists copied), for every fragment of a streaming answer.
 * The pipeline owns the instance it is given: nothing else configures it.
 */
function configure(purify: DOMPurify): void {
  if (configured.has(purify)) return;
  configured.add(purify);
  purify.setConfig(PURIFY_CONFIG);
}

/** `html` sanitized with the configuration `configure` set: a fragment (RETURN_DOM_FRAGMENT). */
function sanitize(purify: DOMPurify, html: string): DocumentFragment {
  configure(purify);
  return purify.sanitize(html) as unknown as DocumentFragment;
}

/**
 * Links keep their target in `data-href` instead of `href`: nothing navigates by itself, the
 * webview asks the host, and the host opens only what `isOpenableLink` accepts, checking again.
 */
function installHooks(purify: DOMPurify): void {
  if (hooked.has(purify)) {
    return;
  }
  hooked.add(purify);
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'PRE') {
      // A code block scrolls sideways: it takes focus so the keyboard can scroll it.
      (node as Element).setAttribute('tabindex', '0');
      return;
    }
    if (node.nodeName !== 'A') {
      return;
    }
    const element = node as Element;
    const href = element.getAttribute('href');
    element.removeAttribute('href');
    // A link the host would refuse (mailto, a host the URL parser rejects) stays text.
    if (href && isOpenableLink(href)) {
      element.setAttribute('data-href', href);
      element.setAttribute('title', element.getAttribute('title') || href);
    }
    if (element.hasAttribute('data-href') || element.hasAttribute('data-citation')) {
      element.setAttribute('role', 'link');
      element.setAttribute('tabindex', '0');
    }
  });
}

export interface MarkdownPipeline {
  readonly md: Markdown;
  /** Markdown to sanitized DOM nodes. */
  render(markdown: string, env: MarkdownEnv): DocumentFragment;
  /** The block-level tokens of `markdown` (no inline parsing): used to find finished blocks. */
  blocks(markdown: string, env: MarkdownEnv): Token[];
  /** All tokens of `markdown` (blocks with their inline children), for `renderTokens`. */
  parse(markdown: string, env: MarkdownEnv): Token[];
  /** Sanitized DOM nodes of tokens from `parse` (a run of whole top-level blocks). */
  renderTokens(tokens: Token[], env: MarkdownEnv): DocumentFragment;
}

/**
 * Highlights, in place, the code blocks under `root` rendered before highlight.js was loaded.
 * A block whose language highlight.js does not know stays as it is, unmarked.
 */
export function highlightPending(root: ParentNode, hljs: Highlighter, purify: DOMPurify): void {
  for (const code of Array.from(root.querySelectorAll<HTMLElement>(`code.${HIGHLIGHT_PENDING}`))) {
    code.classList.remove(HIGHLIGHT_PENDING);
    const language = Array.from(code.classList)
      .find((c) => c.startsWith('language-'))
      ?.slice('language-'.length);
    if (!language || hljs.getLanguage(language) === undefined) continue;
    const html = hljs.highlight(code.textContent ?? '', { language, ignoreIllegals: true }).value;
    code.replaceChildren(sanitize(purify, html));
  }
}

export function createMarkdownPipeline(
  purify: DOMPurify,
  highlighter: HighlighterSource,
  md: Markdown = createMarkdownIt(highlighter),
): MarkdownPipeline {
  installHooks(purify);
  configure(purify);
  return {
    md,
    render(markdown, env) {
      return sanitize(purify, md.render(markdown, env));
    },
    parse(markdown, env) {
      return md.parse(markdown, env);
    },
    renderTokens(tokens, env) {
      return sanitize(purify, md.renderer.render(tokens, md.options, env));
    },
    blocks(markdown, env) {
      const tokens: Token[] = [];
      md.block.parse(markdown, md, env, tokens);
      return tokens;
    },
  };
}
