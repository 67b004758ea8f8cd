/** One message of the conversation: the user's question, or an answer (live while it streams). */
import * as l10n from '@vscode/l10n';
import { citedSources } from '../../src/chatCore/citations';
import { headingAt, quotedSpan } from '../../src/chatCore/quotedSection';
import { excerptFor, shownScores } from '../../src/chatCore/sourceList';
import { sourceTitle } from '../../src/chatCore/grounding';
import { isOpenableLink } from '../../src/chatCore/links';
import { LOCAL_CHAT_MODEL } from '../../src/chatCore/modelTraits';
import type {
  AssistantMessage,
  ChatErrorInfo,
  ChatSource,
  ChatToolName,
  ContextItem,
  ErrorAction,
  NextStep,
  StreamPhase,
  TokenUsage,
  ToolProgress,
  UserMessage,
  WebviewMessage,
} from '../../src/chatCore/protocol';
import { h, icon, textButton } from './dom';
import { IncrementalMarkdownRenderer } from './incrementalRenderer';
import type { MarkdownEnv, MarkdownPipeline } from './markdown';
import type { Announcer } from './announcer';
import { afterPaint, mark, Marks } from './marks';

export interface ViewContext {
  pipeline: MarkdownPipeline;
  post(message: WebviewMessage): void;
  /** True while any answer is streaming (Regenerate waits for it). */
  busy(): boolean;
  now(): number;
  /** Moves the focus to the model picker (an error that another model avoids). */
  chooseModel(): void;
  /** The panel's live region (says only what is new). */
  announcer: Pick<Announcer, 'begin' | 'blocks' | 'status' | 'end'>;
  /** Asks for `view.render()` in the next animation frame (once, however often it is asked). */
  requestRender(view: AnswerView): void;
}

/** Text waiting for a frame beyond this is rendered at once (a few milliseconds of rendering). */
const MAX_UNRENDERED_CHARS = 2048;
/** About how many characters of a source the Sources list shows. */
const SOURCE_EXCERPT_CHARS = 240;

/** Functions, not tables: the words are looked up after main.ts has loaded the translations. */
function toolLabels(tool: ChatToolName): { badge: string; working: string } {
  switch (tool) {
    case 'web':
      return { badge: l10n.t('Web search'), working: l10n.t('Searching the web…') };
    case 'crawl':
      return { badge: l10n.t('Crawl'), working: l10n.t('Fetching the pages…') };
    case 'research':
      return { badge: l10n.t('Web research'), working: l10n.t('Starting the research…') };
  }
}

function contextIcon(item: ContextItem): string {
  return item.kind === 'selection' ? 'selection' : item.kind === 'web' ? 'globe' : 'file-text';
}

function nextStepLabel(step: NextStep): [string, string] {
  switch (step) {
    case 'searchDocuments':
      return ['search', l10n.t('Search the Documents')];
    case 'chooseStore':
      return ['database', l10n.t('Choose a Store')];
    case 'attachFiles':
      return ['files', l10n.t('Attach Files')];
    case 'useLanguageModel':
      return ['sparkle', l10n.t('Use a Language Model…')];
  }
}

function actionLabel(action: ErrorAction): [string, string] {
  switch (action) {
    case 'retry':
      return ['refresh', l10n.t('Retry')];
    case 'setGatewayApiKey':
      return ['key', l10n.t('Set API Key')];
    case 'setDocumentsToken':
      return ['key', l10n.t('Set Token')];
    case 'openGatewaySettings':
      return ['settings-gear', l10n.t('Open Settings')];
    case 'showOutput':
      return ['output', l10n.t('Open Output')];
    case 'chooseStore':
      return ['database', l10n.t('Choose a Store')];
    case 'chooseModel':
      return ['sparkle', l10n.t('Choose a Model')];
    case 'restartLocalBackend':
      return ['debug-restart', l10n.t('Restart Backend and Retry')];
    case 'useLocalExtractive':
      return ['quote', l10n.t('Use {0}', LOCAL_CHAT_MODEL)];
  }
}

/**
 * What a citation link names: the source's file (or page, or selection) and, for a passage, its
 * section: `heading` (the section the answer quotes it from, as the Sources list names it) or,
 * without one, the passage's own heading.
 */
export function citationLabel(source: ChatSource, heading?: string): string {
  const section = source.kind === 'passage' ? (heading ?? source.heading)?.split(' > ').at(-1)?.trim() : undefined;
  return section ? l10n.t('{0}, section "{1}"', sourceTitle(source), section) : sourceTitle(source);
}

const sourceLabels = (sources: readonly ChatSource[] | undefined) => sources?.map((source) => citationLabel(source)) ?? [];

export function contextChip(item: ContextItem, onRemove?: () => void): HTMLElement {
  const title = sourceTitle(item);
  return h(
    'span',
    { className: 'chip', title: item.kind === 'web' ? item.url : item.content.slice(0, 500) },
    icon(contextIcon(item)),
    h('span', { className: 'chip-label', text: title }),
    onRemove &&
      h(
        'button',
        {
          className: 'chip-remove',
          title: l10n.t('Remove {0}', title),
          attrs: { type: 'button', 'aria-label': l10n.t('Remove {0}', title) },
          onClick: onRemove,
        },
        icon('close'),
      ),
  );
}

export function userMessageElement(message: UserMessage): HTMLElement {
  return h(
    'article',
    { className: 'message user', attrs: { 'data-message-id': message.id, 'aria-label': l10n.t('Your question') } },
    h('div', { className: 'message-header' }, icon('account'), h('span', { text: l10n.t('You') })),
    message.context?.length ? h('div', { className: 'chips' }, ...message.context.map((item) => contextChip(item))) : undefined,
    h('div', { className: 'message-text', text: message.content }),
  );
}

/** The page's number format, made once: `toLocaleString` builds one for every number it formats. */
let tokenCounts: Intl.NumberFormat | undefined;

function formatUsage(usage: TokenUsage): string {
  tokenCounts ??= new Intl.NumberFormat();
  return l10n.t(
    '{0} prompt · {1} completion · {2} tokens',
    tokenCounts.format(usage.promptTokens),
    tokenCounts.format(usage.completionTokens),
    tokenCounts.format(usage.totalTokens),
  );
}

/** What the host's copy of an answer must match for its view to be kept. */
export function answerKey(m: AssistantMessage): string {
  return `${m.status}|${m.content.length}|${m.sources?.length ?? 0}|${m.error?.message ?? ''}|${m.usage?.totalTokens ?? ''}|${m.finishReason ?? ''}`;
}

export class AnswerView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly phase: HTMLElement;
  private readonly progressBar: HTMLProgressElement;
  private readonly after: HTMLElement;
  private readonly renderer: IncrementalMarkdownRenderer;
  private readonly env: MarkdownEnv;
  private isLast = false;
  private countdown: ReturnType<typeof setInterval> | undefined;
  /** When the error arrived live (a stored error's wait is long over). */
  private errorArrivedAt: number | undefined;
  /** Set once the text the view was built with is rendered: only later text is announced. */
  private live = false;
  /** Answer text has been rendered (the first time is marked for the latency benchmark). */
  private textShown: boolean;
  /** The sections and excerpts the Sources list shows, for the answer text, sources and query they were found for. */
  private quoted:
    { content: string; sources: ChatSource[]; query: string; headings: Array<string | undefined>; excerpts: string[] } | undefined;

  constructor(
    readonly message: AssistantMessage,
    private readonly ctx: ViewContext,
  ) {
    this.env = { sourceCount: message.sources?.length ?? 0, sourceLabels: sourceLabels(message.sources) };
    this.textShown = message.content.trim() !== '';
    this.body = h('div', { className: 'markdown-body' });
    this.phase = h('span', { className: 'phase', attrs: { 'aria-live': 'polite' } });
    this.progressBar = h('progress', { className: 'tool-progress', attrs: { max: '1', hidden: '', 'aria-label': l10n.t('Progress') } });
    this.after = h('div', { className: 'message-after' });
    const model = message.tool
      ? h('span', { className: 'badge tool-badge', text: toolLabels(message.tool).badge })
      : message.model
        ? h('span', { className: 'model', text: message.model })
        : undefined;
    this.element = h(
      'article',
      { className: 'message assistant', attrs: { 'data-message-id': message.id, 'aria-label': l10n.t('Answer') } },
      h(
        'div',
        { className: 'message-header' },
        icon('hubot'),
        h('span', { text: 'DocChat' }),
        model,
        message.legacy && h('span', { className: 'badge', text: l10n.t('legacy') }),
        this.phase,
      ),
      this.progressBar,
      this.body,
      this.after,
    );
    this.renderer = new IncrementalMarkdownRenderer(this.body, ctx.pipeline, this.env, (blocks) => {
      if (this.live) ctx.announcer.blocks(blocks.textContent ?? '');
    });
    if (!this.streaming && message.sources?.length) {
      this.env.sourceLabels = this.quotedLabels(message.sources);
    }
    this.renderer.append(message.content);
    if (!this.streaming) {
      this.renderer.finish();
    }
    this.live = this.streaming;
    this.showPhase(
      message.status === 'pending'
        ? 'searching'
        : message.status === 'streaming'
          ? message.thinking
            ? 'thinking'
            : 'generating'
          : undefined,
    );
    this.renderAfter();
  }

  get id(): string {
    return this.message.id;
  }

  get requestId(): string | undefined {
    return this.streaming ? this.message.requestId : undefined;
  }

  get streaming(): boolean {
    return this.message.status === 'pending' || this.message.status === 'streaming';
  }

  get key(): string {
    return answerKey(this.message);
  }

  setLast(isLast: boolean): void {
    if (this.isLast !== isLast) {
      this.isLast = isLast;
      this.renderAfter();
    }
  }

  /**
   * Called when another answer starts or ends: Regenerate (and an error's Retry) of the last
   * answer waits for it. An earlier answer offers neither, whatever runs, so it is not rebuilt: its
   * sources stay as the user left them (a collapsed list stays collapsed), and the end of an answer
   * costs the same in a conversation of 200 messages as in one of two.
   */
  refresh(): void {
    if (this.isLast) this.renderAfter();
  }

  start(sources: ChatSource[], searchQuery?: string): void {
    this.ctx.announcer.begin();
    this.message.sources = sources;
    if (searchQuery) this.message.searchQuery = searchQuery;
    this.message.status = 'streaming';
    this.env.sourceCount = sources.length;
    this.env.sourceLabels = sourceLabels(sources);
    this.showPhase('generating');
    this.renderAfter();
  }

  status(phase: StreamPhase): void {
    if (phase === 'thinking') {
      this.message.thinking = true;
      // A reasoning model may think for a minute before its first word: said once, not left to the busy answer.
      this.ctx.announcer.status(l10n.t('Thinking…'));
    } else {
      delete this.message.thinking;
    }
    this.showPhase(phase);
  }

  /** Tool progress (research polls): shown in the header and as a progress bar. */
  progress(progress: ToolProgress): void {
    this.message.progress = progress;
    this.showPhase(this.message.status === 'pending' ? 'searching' : 'generating');
  }

  /**
   * Buffers the text; it is rendered in the next animation frame, with whatever else arrives. When
   * frames are late (a busy page, a very fast stream) and much text has piled up, it renders now,
   * so that no single render (a frame, or the end of the stream) grows into a long task.
   */
  delta(text: string): void {
    this.message.content += text;
    this.renderer.push(text);
    if (this.renderer.pendingLength >= MAX_UNRENDERED_CHARS) {
      this.renderer.flush();
      this.markFirstText(false);
    }
    this.ctx.requestRender(this);
  }

  /** Renders the text buffered since the last frame; false when there was none. */
  render(): boolean {
    if (!this.renderer.pending) {
      return false;
    }
    this.renderer.flush();
    // render() runs in a frame callback: a task posted now runs after this frame's paint.
    this.markFirstText(true);
    return true;
  }

  /** Marks the first rendering of answer text, and the paint that shows it. */
  private markFirstText(inFrame: boolean): void {
    if (this.textShown || this.message.content.trim() === '') return;
    this.textShown = true;
    const detail = { requestId: this.message.requestId };
    mark(Marks.firstText, detail);
    afterPaint(
      () => mark(Marks.firstTextPainted, detail),
      inFrame,
      (callback) => requestAnimationFrame(callback),
    );
  }

  done(stopped: boolean, usage?: TokenUsage, finishReason?: string, nextSteps?: NextStep[]): void {
    this.renderer.finish();
    this.relabelCitations();
    this.markFirstText(false);
    this.endAnnouncement(
      stopped ? l10n.t('Stopped.') : finishReason === 'length' ? l10n.t('Cut off at the token limit.') : l10n.t('Answer complete.'),
    );
    this.message.status = stopped ? 'stopped' : 'done';
    if (nextSteps?.length) this.message.nextSteps = nextSteps;
    if (usage) this.message.usage = usage;
    if (finishReason) this.message.finishReason = finishReason;
    delete this.message.requestId;
    this.showPhase(undefined);
    this.renderAfter();
  }

  error(error: ChatErrorInfo): void {
    this.renderer.finish();
    this.relabelCitations();
    this.endAnnouncement(l10n.t('Error: {0}', error.message));
    this.message.status = 'error';
    this.message.error = error;
    delete this.message.requestId;
    this.errorArrivedAt = this.ctx.now();
    this.showPhase(undefined);
    this.renderAfter();
  }

  dispose(): void {
    this.stopCountdown();
  }

  private endAnnouncement(ending: string): void {
    if (!this.live) return;
    this.live = false;
    this.ctx.announcer.end(this.body.textContent ?? '', ending);
  }

  private showPhase(phase: StreamPhase | undefined): void {
    const { tool, progress } = this.message;
    this.element.dataset.status = this.message.status;
    // Assistive technology waits for the answer to settle before reading it as a whole.
    if (this.streaming) this.element.setAttribute('aria-busy', 'true');
    else this.element.removeAttribute('aria-busy');
    this.phase.replaceChildren();
    if (phase) {
      const label =
        phase === 'connecting'
          ? l10n.t('Connecting…')
          : tool
            ? (progress?.text ?? toolLabels(tool).working)
            : phase === 'searching'
              ? l10n.t('Searching documents…')
              : phase === 'thinking'
                ? l10n.t('Thinking…')
                : l10n.t('Generating…');
      this.phase.append(icon('loading', 'codicon-modifier-spin'), ` ${label}`);
    }
    const fraction = phase ? progress?.fraction : undefined;
    this.progressBar.hidden = fraction === undefined;
    if (fraction !== undefined) {
      this.progressBar.value = fraction;
      this.progressBar.textContent = `${Math.round(fraction * 100)}%`;
    }
  }

  private renderAfter(): void {
    const m = this.message;
    this.stopCountdown();
    const parts: Array<HTMLElement | undefined> = [];
    if (m.status === 'stopped') {
      const why = m.finishReason === 'interrupted' ? l10n.t('Interrupted (the window was reloaded)') : l10n.t('Stopped');
      parts.push(h('div', { className: 'answer-note stopped' }, icon('stop-circle'), h('span', { text: why })));
    } else if (m.status === 'done' && m.finishReason === 'length') {
      parts.push(h('div', { className: 'answer-note' }, icon('warning'), h('span', { text: l10n.t('Cut off at the token limit.') })));
    } else if (m.status === 'done' && m.content.trim() === '') {
      parts.push(h('div', { className: 'answer-note' }, icon('info'), h('span', { text: l10n.t('The model returned an empty answer.') })));
    }
    if (m.status === 'error' && m.error) {
      parts.push(this.errorBox(m.error, this.errorArrivedAt));
    }
    if (m.status === 'done' && m.nextSteps?.length) {
      const buttons = m.nextSteps.map((step) => {
        const [iconName, label] = nextStepLabel(step);
        const run = () =>
          this.ctx.post(step === 'searchDocuments' ? { type: 'searchDocuments', messageId: m.id } : { type: 'runAction', action: step });
        return textButton(iconName, label, run, `next-step action-${step}`);
      });
      parts.push(h('div', { className: 'next-steps', attrs: { role: 'group', 'aria-label': l10n.t('Ways forward') } }, ...buttons));
    }
    if (m.searchQuery && m.status !== 'pending') {
      parts.push(this.searchedFor(m.searchQuery));
    }
    if (m.sources?.length) {
      parts.push(this.sourcesList(m.sources));
    }
    const footer: HTMLElement[] = [];
    // local-extractive generates nothing: the counts it reports mean nothing to the user.
    if (m.usage && m.model !== LOCAL_CHAT_MODEL) {
      footer.push(h('span', { className: 'usage', title: l10n.t('Token usage reported by the gateway'), text: formatUsage(m.usage) }));
    }
    if (this.isLast && !this.streaming && m.status !== 'error' && !this.ctx.busy()) {
      footer.push(textButton('refresh', l10n.t('Regenerate'), () => this.ctx.post({ type: 'regenerate', messageId: m.id }), 'regenerate'));
    }
    if (footer.length) {
      parts.push(h('div', { className: 'message-footer' }, ...footer));
    }
    this.after.replaceChildren(...parts.filter((p): p is HTMLElement => p !== undefined));
  }

  private errorBox(error: ChatErrorInfo, arrivedAt: number | undefined): HTMLElement {
    const buttons = error.actions.map((action) => {
      const [iconName, label] = actionLabel(action);
      const button = textButton(
        iconName,
        label,
        () => {
          if (action === 'retry') {
            this.ctx.post({ type: 'regenerate', messageId: this.message.id });
          } else if (action === 'restartLocalBackend') {
            this.ctx.post({ type: 'restartBackend', messageId: this.message.id });
          } else if (action === 'chooseModel') {
            this.ctx.chooseModel();
          } else if (action === 'useLocalExtractive') {
            this.ctx.post({ type: 'setModel', model: LOCAL_CHAT_MODEL });
            // The question this answer failed on is answered again, now by local-extractive.
            if (this.isLast && !this.ctx.busy()) this.ctx.post({ type: 'regenerate', messageId: this.message.id });
          } else {
            this.ctx.post({ type: 'runAction', action });
          }
        },
        `error-action action-${action}`,
      );
      // Both ask the last question again, which only the last answer may.
      button.disabled = (action === 'retry' || action === 'restartLocalBackend') && (!this.isLast || this.ctx.busy());
      return button;
    });
    const box = h(
      'div',
      { className: `inline-error error-${error.kind}`, attrs: { role: 'alert' } },
      h('div', { className: 'error-message' }, icon('error'), h('span', { text: error.message })),
      h('div', { className: 'error-actions' }, ...buttons),
    );
    const retry = buttons[error.actions.indexOf('retry')];
    if (retry && error.retryAfterMs !== undefined && arrivedAt !== undefined) {
      // A rate limit says how long to wait: Retry unlocks when that has passed.
      const until = arrivedAt + error.retryAfterMs;
      const label = retry.querySelector('span:last-child')!;
      const tick = () => {
        const left = Math.ceil((until - this.ctx.now()) / 1000);
        retry.disabled = left > 0 || !this.isLast || this.ctx.busy();
        label.textContent = left > 0 ? l10n.t('Retry in {0} s', left) : l10n.t('Retry');
        if (left <= 0) this.stopCountdown();
      };
      tick();
      if (retry.disabled) this.countdown = setInterval(tick, 1000);
    }
    return box;
  }

  /**
   * "Searched for: …": what the grounding searched for. On the last answer, once nothing runs,
   * the query is an input the user can edit and search again with (Enter or the button).
   */
  private searchedFor(query: string): HTMLElement {
    const m = this.message;
    const editable = this.isLast && !this.streaming && !this.ctx.busy();
    if (!editable) {
      return h('div', { className: 'searched-for' }, icon('search'), h('span', { text: l10n.t('Searched for: {0}', query) }));
    }
    // One line of text that wraps (a text input would cut a long query in a narrow panel): Enter
    // searches, and a pasted line break becomes a space.
    const input = h('textarea', {
      className: 'searched-for-input',
      attrs: { rows: '1', 'aria-label': l10n.t('Searched for (edit and press Enter to search again)'), maxlength: '10000' },
    });
    input.value = query;
    const submit = () => {
      const text = input.value.trim();
      if (text) this.ctx.post({ type: 'searchAgain', messageId: m.id, query: text });
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.isComposing) {
        event.preventDefault();
        submit();
      }
    });
    input.addEventListener('input', () => {
      if (/[\r\n]/.test(input.value)) input.value = input.value.replace(/\s*[\r\n]+\s*/g, ' ');
    });
    return h(
      'div',
      { className: 'searched-for editable' },
      icon('search'),
      h('label', { text: l10n.t('Searched for:') }, input),
      textButton('refresh', l10n.t('Search Again'), submit, 'search-again'),
    );
  }

  private sourcesList(sources: ChatSource[]): HTMLElement {
    const cited = new Set(citedSources(this.message.content, sources.length));
    const { headings: sections, excerpts } = this.quotedParts(sources);
    const scores = shownScores(sources);
    // Said once the answer is complete: while it streams, a source may still be quoted. An answer
    // that failed or was stopped did not get to quote them, so its sources are listed plainly.
    const final = !this.streaming && this.message.status !== 'error' && this.message.status !== 'stopped';
    const rovingStop = sources.findIndex((source) => source.kind !== 'web' || isOpenableLink(source.url));
    const items = sources.map((source, i) => {
      const title = sourceTitle(source);
      const detail =
        source.kind === 'passage'
          ? [source.storeName, sections[i]].filter(Boolean).join(' · ')
          : source.kind === 'web'
            ? source.url
            : 'selection';
      // Shown only when the list reads in its order (see shownScores); kept on one line.
      const score = scores[i];
      const scoreLabel =
        score !== undefined
          ? h('span', {
              className: 'source-score',
              text: l10n.t('score {0}', score.toFixed(2)),
              title: l10n.t('Score {0}: how well the passage matched the search that found it (0 to 1)', score.toFixed(2)),
            })
          : undefined;
      const openable = source.kind !== 'web' || isOpenableLink(source.url);
      const label = [
        h('span', { className: 'source-number', text: `[${source.number}]` }),
        icon(contextIcon(source)),
        // The name and its tag wrap as one: in a narrow chat the tag goes whole under the name.
        h(
          'span',
          { className: 'source-name' },
          h('span', { className: 'source-title', text: title }),
          final && !cited.has(source.number)
            ? h('span', { className: 'source-uncited', text: l10n.t('not quoted in the answer') })
            : undefined,
        ),
      ];
      const snippet = excerpts[i];
      return h(
        'li',
        { className: cited.has(source.number) ? 'source cited' : 'source' },
        openable
          ? h(
              'a',
              {
                className: 'source-link',
                title: l10n.t('Open source {0}: {1}', source.number, title),
                // One Tab stop for the list (the first source), arrow keys within (`moveInSources`).
                attrs: { role: 'link', tabindex: rovingStop === i ? '0' : '-1', 'data-source': String(source.number) },
              },
              ...label,
            )
          : h('span', { className: 'source-link inert', title: l10n.t('Not a web address: not opened') }, ...label),
        (detail || scoreLabel) &&
          h('span', { className: 'source-detail', text: detail && scoreLabel ? `${detail} · ` : detail }, scoreLabel),
        snippet && h('div', { className: 'source-snippet', text: snippet }),
      );
    });
    const details = h(
      'details',
      { className: 'sources' },
      h('summary', { text: l10n.t('Sources ({0})', sources.length) }),
      h('ol', { attrs: { 'aria-label': l10n.t('Sources: Up and Down arrow keys move between them') } }, ...items),
    );
    details.open = true;
    return details;
  }

  /**
   * Each passage's section as the answer quotes it, which a passage that runs on through several
   * sections may not start in, and each source's excerpt: at what the answer quoted of it, else
   * at its best match for the query. Found again only when the answer, its sources or its query
   * changed: every answer's list is built again whenever another answer starts or ends.
   */
  private quotedParts(sources: ChatSource[]): { headings: Array<string | undefined>; excerpts: string[] } {
    const content = this.message.content;
    const query = this.message.searchQuery ?? '';
    const quoted = this.quoted;
    if (quoted?.content === content && quoted.sources === sources && quoted.query === query) return quoted;
    const spans = sources.map((source) => quotedSpan(content, source.number, sources.length, source.content));
    const headings = sources.map((source, i) => {
      if (source.kind !== 'passage') return undefined;
      const span = spans[i];
      return span ? headingAt(source.content, span.start, source.heading) : source.heading;
    });
    // Plain text cut at a word, as search results show it: no heading marks, emphasis or table pipes.
    const excerpts = sources.map((source, i) => excerptFor(source.content, spans[i], query, SOURCE_EXCERPT_CHARS));
    this.quoted = { content, sources, query, headings, excerpts };
    return this.quoted;
  }

  /** Each source's citation-link name, by the section the complete answer quotes it from. */
  private quotedLabels(sources: ChatSource[]): string[] {
    const { headings } = this.quotedParts(sources);
    return sources.map((source, i) => citationLabel(source, headings[i]));
  }

  /**
   * Once the answer is complete, names its citation links by the section each source is quoted
   * from, as the Sources list does (while it streams, they name the passage's own heading: the
   * quote may not have arrived yet).
   */
  private relabelCitations(): void {
    const sources = this.message.sources;
    if (!sources?.length) return;
    const labels = this.quotedLabels(sources);
    this.env.sourceLabels = labels;
    for (const link of this.body.querySelectorAll<HTMLElement>('a.citation[data-citation]')) {
      const label = labels[Number(link.dataset.citation) - 1];
      if (label === undefined) continue;
      const name = l10n.t('Source {0}: {1}', Number(link.dataset.citation), label);
      link.title = name;
      link.setAttribute('aria-label', name);
    }
  }

  private stopCountdown(): void {
    if (this.countdown !== undefined) {
      clearInterval(this.countdown);
      this.countdown = undefined;
    }
  }
}

/**
 * The keys that move the focus between the source links of one Sources list (Up, Down, Home,
 * End), as in VS Code's list of an answer's references: the list is one Tab stop, the source last
 * focused, so Tab passes an answer's sources at once. Returns whether the key was one of them.
 */
export function moveInSources(link: HTMLElement, key: string): boolean {
  const list = link.closest('ol');
  if (!list || !link.matches('.source-link[data-source]')) return false;
  const links = [...list.querySelectorAll<HTMLElement>('.source-link[data-source]')];
  const at = links.indexOf(link);
  const targets: Record<string, number> = {
    ArrowDown: Math.min(at + 1, links.length - 1),
    ArrowUp: Math.max(at - 1, 0),
    Home: 0,
    End: links.length - 1,
  };
  const to = Object.hasOwn(targets, key) ? targets[key] : undefined;
  if (to === undefined) return false;
  links.forEach((other, i) => other.setAttribute('tabindex', i === to ? '0' : '-1'));
  links[to]!.focus();
  return true;
}
