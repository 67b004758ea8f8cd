import * as assert from 'node:assert/strict';
import createDOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/common';
import { JSDOM } from 'jsdom';
import type { AssistantMessage, Conversation, HostMessage, WebviewMessage } from '../../../../src/chatCore/protocol';
import { localBackendStoppedError, notConnectedError } from '../../../../src/features/chat/chatErrors';

// The chat webview's behaviour in a DOM (jsdom): what the user sees for each host message and what
// the webview posts back for each key press and click.

const dom = new JSDOM('<!doctype html><html><body><div id="app"></div></body></html>', { pretendToBeVisual: true });
const g = globalThis as Record<string, unknown>;
// The page's globals exist only while this file's tests run: left in place, they would tell every
// later test file's libraries (tesseract.js in the backend's OCR, for one) that they run in a browser.
const pageGlobals: Record<string, unknown> = {
  document: dom.window.document,
  window: dom.window,
  requestAnimationFrame: dom.window.requestAnimationFrame.bind(dom.window),
};
const before_: Record<string, unknown> = {};
function installPageGlobals(): void {
  for (const [name, value] of Object.entries(pageGlobals)) {
    before_[name] = g[name];
    g[name] = value;
  }
}
function removePageGlobals(): void {
  for (const name of Object.keys(pageGlobals)) {
    if (before_[name] === undefined) delete g[name];
    else g[name] = before_[name];
  }
}

// Loaded while the globals exist: the webview code builds elements with the global document.
installPageGlobals();
const { ChatApp } = require('../../../../media/chat/app') as typeof import('../../../../media/chat/app');
const { createMarkdownPipeline, loadedHighlighter } =
  require('../../../../media/chat/markdown') as typeof import('../../../../media/chat/markdown');
removePageGlobals();

const pipeline = createMarkdownPipeline(createDOMPurify(dom.window as unknown as Window & typeof globalThis), loadedHighlighter(hljs));

function conversation(messages: Conversation['messages'] = [], extra: Partial<Conversation> = {}): Conversation {
  return {
    id: 'c1',
    title: 'Retention',
    createdAt: 1,
    updatedAt: 2,
    options: { model: 'local-extractive' },
    messages,
    pendingContext: [],
    ...extra,
  };
}

const question = { id: 'u1', role: 'user' as const, content: 'How long are invoices kept?', createdAt: 1 };
const pending = (id = 'a1', requestId = 'r1'): AssistantMessage => ({
  id,
  role: 'assistant',
  content: '',
  createdAt: 2,
  status: 'pending',
  requestId,
  model: 'local-extractive',
});

/**
 * Replaces Date.now and the global setInterval/clearInterval with a clock the test moves:
 * `advance(ms)` runs every interval that falls due, in order.
 */
function manualClock() {
  const real = { now: Date.now, setInterval: globalThis.setInterval, clearInterval: globalThis.clearInterval };
  let now = 1_000_000;
  let nextId = 1;
  const intervals = new Map<number, { callback: () => void; every: number; due: number }>();
  Date.now = () => now;
  g.setInterval = (callback: () => void, every: number) => {
    const id = nextId++;
    intervals.set(id, { callback, every, due: now + every });
    return id;
  };
  g.clearInterval = (id: number) => void intervals.delete(id);
  return {
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = [...intervals.entries()].sort((a, b) => a[1].due - b[1].due)[0];
        if (!next || next[1].due > end) break;
        now = next[1].due;
        next[1].due += next[1].every;
        next[1].callback();
      }
      now = end;
    },
    intervals: () => intervals.size,
    restore() {
      Date.now = real.now;
      g.setInterval = real.setInterval;
      g.clearInterval = real.clearInterval;
    },
  };
}

/** The host's message for a second question ("And contracts?") and its pending answer. */
const secondTurn = (): Extract<HostMessage, { type: 'turn' }> => ({
  type: 'turn',
  conversationId: 'c1',
  title: 'Retention',
  from: 2,
  messages: [{ id: 'u2', role: 'user', content: 'And contracts?', createdAt: 3 }, pending('a2', 'r2')],
  pendingContext: [],
});

function setup() {
  const root = dom.window.document.createElement('div');
  dom.window.document.body.replaceChildren(root);
  const posted: WebviewMessage[] = [];
  let saved: unknown;
  // Animation frames run when the test says so (`frame()`), as the browser would between tasks.
  let frames: Array<() => void> = [];
  const app = new ChatApp(
    root as unknown as HTMLElement,
    { postMessage: (m) => posted.push(m), getState: () => saved, setState: (s) => (saved = s) },
    pipeline,
    (callback) => frames.push(callback),
  );
  const frame = () => {
    const run = frames;
    frames = [];
    run.forEach((callback) => callback());
    return run.length;
  };
  const send = (...messages: HostMessage[]) => messages.forEach((m) => app.receive(m));
  const $ = <T extends Element = HTMLElement>(selector: string) => root.querySelector(selector) as unknown as T | null;
  const $$ = (selector: string) => Array.from(root.querySelectorAll(selector)) as unknown as HTMLElement[];
  const key = (target: Element, k: string, init: Record<string, unknown> = {}) =>
    target.dispatchEvent(new dom.window.KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init }));
  const click = (target: Element | null) => {
    assert.ok(target, 'nothing to click');
    target.dispatchEvent(new dom.window.MouseEvent('click', { bubbles: true, cancelable: true }));
  };
  const state = (c: Conversation): HostMessage => ({
    type: 'state',
    conversation: c,
    conversations: [{ id: c.id, title: c.title, createdAt: 1, updatedAt: 2, questions: 1 }],
    projectCode: 'P-7',
  });
  return { root, app, posted, send, frame, pendingFrames: () => frames.length, $, $$, key, click, state };
}

/** An answer r1 starting with two sources, policy.md [1] and guide.md [2]. */
function startTwoSourceAnswer(t: ReturnType<typeof setup>): void {
  const sources: AssistantMessage['sources'] = [
    { kind: 'passage', storeId: 'vs', fileId: 'f1', filename: 'policy.md', content: 'one', number: 1 },
    { kind: 'passage', storeId: 'vs', fileId: 'f2', filename: 'guide.md', content: 'two', number: 2 },
  ];
  t.send(t.state(conversation([question, pending('a1', 'r1')])));
  t.send({ type: 'streamStart', requestId: 'r1', messageId: 'a1', sources });
}

describe('chat webview', () => {
  before(installPageGlobals);
  after(removePageGlobals);

  it('sends on Enter, keeps Shift+Enter for a new line, and ignores an empty question', () => {
    const t = setup();
    t.send(t.state(conversation()));
    const input = t.$<HTMLTextAreaElement>('textarea')!;
    input.value = 'line one';
    t.key(input, 'Enter', { shiftKey: true });
    assert.deepEqual(t.posted, []);
    t.key(input, 'Enter');
    assert.deepEqual(t.posted, [{ type: 'send', text: 'line one' }]);
    assert.equal(input.value, '');
    t.key(input, 'Enter');
    assert.equal(t.posted.length, 1);
  });

  it('shows "Connecting…" on a question that waits for the connection, with Stop, then the search', () => {
    const t = setup();
    t.send(t.state(conversation([question, pending()])), { type: 'streamStatus', requestId: 'r1', phase: 'connecting' });
    assert.match(t.$('.phase')!.textContent ?? '', /Connecting…/);
    assert.ok(t.$('.stop:not([hidden])'), 'the wait can be stopped');
    t.send({ type: 'streamStatus', requestId: 'r1', phase: 'searching' });
    assert.match(t.$('.phase')!.textContent ?? '', /Searching/);
  });

  it('shows "Thinking…" while a reasoning model reasons, then "Generating…" with the answer, for screen readers too', () => {
    const t = setup();
    t.send(t.state(conversation([question, pending()])), { type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: [] });
    t.send({ type: 'streamStatus', requestId: 'r1', phase: 'thinking' });
    assert.match(t.$('.phase')!.textContent ?? '', /Thinking…/);
    // Said once in the panel's live region: the answer itself is busy, and may stay silent for a minute.
    assert.deepEqual(
      [...t.$$('.announcer p')].map((p) => p.textContent),
      ['Thinking…'],
    );
    // The answer drawn again (another conversation and back, the webview reloaded) still thinks.
    t.send(t.state(conversation([question, { ...pending(), status: 'streaming', thinking: true }])));
    assert.match(t.$('.phase')!.textContent ?? '', /Thinking…/);
    t.send({ type: 'streamStatus', requestId: 'r1', phase: 'generating' });
    assert.match(t.$('.phase')!.textContent ?? '', /Generating…/);
  });

  it('tells apart conversations with the same title by when they started and how many questions they hold, also for screen readers', () => {
    const t = setup();
    const same = 'How do I create a store?';
    const c = conversation([question, { ...pending(), status: 'done', content: 'Ten years.' }], { id: 'c1', title: same });
    const started = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    const [t1, t2] = [Date.UTC(2026, 10, 27, 9, 5), Date.UTC(2026, 10, 28, 14, 40)];
    t.send({
      ...t.state(c),
      conversations: [
        { id: 'c1', title: same, createdAt: t2, updatedAt: 9, questions: 1 },
        { id: 'c2', title: 'Retention', createdAt: t1, updatedAt: 8, questions: 4 },
        { id: 'c3', title: same, createdAt: t1, updatedAt: 7, questions: 3 },
      ],
    } as HostMessage);
    const labels = () => [...t.$<HTMLSelectElement>('select.conversation-select')!.options].map((o) => o.textContent);
    assert.deepEqual(labels(), [
      `${started.format(t2)} — ${same} (1 question)`,
      'Retention',
      `${started.format(t1)} — ${same} (3 questions)`,
    ]);
    t.send({ ...secondTurn(), title: same });
    assert.deepEqual(
      labels(),
      [`${started.format(t2)} — ${same} (2 questions)`, 'Retention', `${started.format(t1)} — ${same} (3 questions)`],
      'a new question counts at once',
    );
  });

  it('renders a streaming answer with citations, stops it with Escape, and shows it as stopped with Regenerate', () => {
    const t = setup();
    t.send(t.state(conversation([question, pending()])));
    assert.ok(t.$('.stop:not([hidden])'), 'Stop shows while answering');
    assert.match(t.$('.phase')!.textContent ?? '', /Searching/);
    t.send(
      {
        type: 'streamStart',
        requestId: 'r1',
        messageId: 'a1',
        sources: [
          {
            kind: 'passage',
            storeId: 'vs',
            fileId: 'f1',
            filename: 'retention.md',
            content: 'Invoices are kept for ten years.',
            score: 0.9,
            number: 1,
          },
        ],
      },
      { type: 'streamDelta', requestId: 'r1', text: 'Invoices are kept ' },
      { type: 'streamDelta', requestId: 'r1', text: 'for ten years [1].\n\nMore' },
    );
    t.frame();
    const body = t.$('.markdown-body')!;
    assert.match(body.textContent ?? '', /Invoices are kept for ten years \[1\]\.\s*More/);
    assert.equal(t.$$('.markdown-body a.citation').length, 1);

    t.key(dom.window.document.body, 'Escape');
    assert.deepEqual(t.posted.at(-1), { type: 'stop', requestId: 'r1' });

    t.send({ type: 'streamDone', requestId: 'r1', stopped: true });
    assert.match(t.$('.answer-note.stopped')!.textContent ?? '', /Stopped/);
    // A circled stop sign: the plain square read as an unticked checkbox beside "Stopped".
    assert.ok(t.$('.answer-note.stopped .codicon-stop-circle'), 'the stopped note shows a stop sign, not a box');
    assert.ok(t.$('.send:not([hidden])'), 'Send is back');
    assert.match(body.textContent ?? '', /More/, 'the partial answer stays');
    t.click(t.$('.regenerate'));
    assert.deepEqual(t.posted.at(-1), { type: 'regenerate', messageId: 'a1' });
  });

  it('gets from the answers to the question box in one keystroke (typing there, or the skip button), and back to the header with the other skip button', () => {
    const t = setup();
    t.send(
      t.state(conversation([question, pending()])),
      {
        type: 'streamStart',
        requestId: 'r1',
        messageId: 'a1',
        searchQuery: 'how long are invoices kept',
        sources: [
          { kind: 'passage', storeId: 'vs', fileId: 'f1', filename: 'retention.md', content: 'Invoices are kept.', score: 0.9, number: 1 },
        ],
      },
      { type: 'streamDelta', requestId: 'r1', text: 'Invoices are kept [1].' },
    );
    t.frame();
    t.send({ type: 'streamDone', requestId: 'r1', stopped: false });
    const doc = dom.window.document;
    const input = t.$<HTMLTextAreaElement>('textarea.composer-input')!;
    const citation = t.$<HTMLElement>('.markdown-body a.citation')!;
    citation.focus();
    t.key(citation, 'a', { ctrlKey: true });
    assert.equal(doc.activeElement, citation, 'a shortcut is not typing');
    t.key(citation, ' ');
    assert.equal(doc.activeElement, citation, 'Space presses the link');
    t.key(citation, 'W');
    assert.equal(doc.activeElement, input, 'a typed character goes to the question box');
    const searchedFor = t.$<HTMLInputElement>('.searched-for-input')!;
    searchedFor.focus();
    t.key(searchedFor, 'x');
    assert.equal(doc.activeElement, searchedFor, 'typing into the answer’s own search box stays there');

    const skip = t.$<HTMLButtonElement>('.skip-to-composer')!;
    assert.equal(skip.textContent, 'Skip to the question box');
    assert.equal(
      skip.compareDocumentPosition(t.$('.messages')!) & dom.window.Node.DOCUMENT_POSITION_FOLLOWING,
      dom.window.Node.DOCUMENT_POSITION_FOLLOWING,
      'before the messages in Tab order',
    );
    citation.focus();
    t.click(skip);
    assert.equal(doc.activeElement, input);

    // The way back: between the messages and the question box, it goes to the header's first control.
    const back = t.$<HTMLButtonElement>('.skip-to-top')!;
    assert.equal(back.textContent, 'Skip to the top of the chat');
    const FOLLOWING = dom.window.Node.DOCUMENT_POSITION_FOLLOWING;
    assert.equal(t.$('.messages')!.compareDocumentPosition(back) & FOLLOWING, FOLLOWING, 'after the messages in Tab order');
    assert.equal(back.compareDocumentPosition(input) & FOLLOWING, FOLLOWING, 'before the question box');
    t.click(back);
    assert.equal(doc.activeElement, t.$('select.conversation-select'));
  });

  it('keeps the live answer element when the state is posted again mid-stream, and ignores other request ids', () => {
    const t = setup();
    t.send(
      t.state(conversation([question, pending()])),
      { type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: [] },
      { type: 'streamDelta', requestId: 'r1', text: 'Hello' },
    );
    const article = t.$('article.assistant');
    t.send(t.state(conversation([question, { ...pending(), status: 'streaming', content: 'Hello' }])));
    assert.equal(t.$('article.assistant'), article);
    t.send({ type: 'streamDelta', requestId: 'other', text: ' ignored' }, { type: 'streamDelta', requestId: 'r1', text: ' world' });
    t.frame();
    assert.equal(t.$('.markdown-body')!.textContent?.trim(), 'Hello world');
  });

  it('adds a new turn without rebuilding the earlier messages, and replaces the last answer on regenerate', () => {
    const t = setup();
    const done: AssistantMessage = { ...pending(), status: 'done', content: 'Ten years.' };
    delete done.requestId;
    t.send(
      t.state(
        conversation([question, done], {
          title: 'New chat',
          pendingContext: [{ kind: 'web', url: 'https://example.com/', title: 'Example', content: 'x' }],
        }),
      ),
    );
    const [firstQuestion, firstAnswer] = t.$$('article');
    assert.equal(t.$$('.pending-context > *').length, 1);
    t.send(secondTurn());
    const articles = t.$$('article');
    assert.equal(articles.length, 4);
    assert.equal(articles[0], firstQuestion, 'the earlier question keeps its element');
    assert.equal(articles[1], firstAnswer, 'the earlier answer keeps its element');
    assert.match(articles[2]!.textContent ?? '', /And contracts\?/);
    assert.equal(t.$$('.pending-context > *').length, 0, 'the sent context leaves the composer');
    assert.equal(t.$<HTMLSelectElement>('select.conversation-select, select')!.options[0]!.textContent, 'Retention');
    t.send(
      { type: 'streamStart', requestId: 'r2', messageId: 'a2', sources: [] },
      { type: 'streamDelta', requestId: 'r2', text: 'Six years.' },
      { type: 'streamDone', requestId: 'r2', stopped: false },
    );
    t.frame();
    const streamed = t.$$('article')[3]!;
    assert.match(streamed.textContent ?? '', /Six years\./);
    // The next turn keeps the answer that streamed as it ended (done), not as it started.
    const third = { id: 'u3', role: 'user' as const, content: 'And notes?', createdAt: 4 };
    t.send({ type: 'turn', conversationId: 'c1', title: 'Retention', from: 4, messages: [third, pending('a4', 'r4')], pendingContext: [] });
    assert.equal(t.$$('article').length, 6);
    assert.equal(t.$$('article')[3], streamed);
    assert.equal(streamed.dataset.status, 'done');
    assert.match(streamed.textContent ?? '', /Six years\./);
    // Regenerate: the last answer is replaced by a new pending one.
    t.send({ type: 'turn', conversationId: 'c1', title: 'Retention', from: 5, messages: [pending('a5', 'r5')], pendingContext: [] });
    assert.equal(t.$$('article').length, 6);
    assert.equal(t.$$('article')[5]!.dataset.messageId, 'a5');
    // A turn of another conversation is not shown here.
    t.send({ ...secondTurn(), conversationId: 'c2', title: 'Other', from: 0 });
    assert.equal(t.$$('article').length, 6);
  });

  it('when an answer ends, rebuilds only its own sources and footer and the Regenerate of the last answer, not those of earlier answers', () => {
    const t = setup();
    const source = {
      kind: 'passage' as const,
      storeId: 'vs',
      fileId: 'f1',
      filename: 'retention.md',
      content: 'Invoices are kept for ten years.',
      score: 0.9,
      number: 1,
    };
    const done: AssistantMessage = { ...pending(), status: 'done', content: 'Ten years [1].', sources: [source] };
    delete done.requestId;
    t.send(t.state(conversation([question, done])));
    const [, firstAnswer] = t.$$('article');
    const earlierSources = firstAnswer!.querySelector('details.sources');
    assert.ok(earlierSources, 'the earlier answer lists its source');
    assert.ok(firstAnswer!.querySelector('.regenerate'), 'the last answer offers Regenerate');
    t.send(secondTurn());
    assert.equal(firstAnswer!.querySelector('.regenerate'), null, 'only the last answer offers Regenerate');
    const kept = firstAnswer!.querySelector('details.sources');
    t.send(
      { type: 'streamStart', requestId: 'r2', messageId: 'a2', sources: [source] },
      { type: 'streamDelta', requestId: 'r2', text: 'Six years [1].' },
      { type: 'streamDone', requestId: 'r2', stopped: false },
    );
    t.frame();
    assert.equal(firstAnswer!.querySelector('details.sources'), kept, 'the earlier answer keeps its sources element');
    assert.equal(firstAnswer!.querySelector('.regenerate'), null);
    assert.ok(t.$$('article')[3]!.querySelector('.regenerate'), 'the answer that ended offers Regenerate');
  });

  it('opens a long conversation at its last messages first, then builds the earlier ones above them, in order', () => {
    const t = setup();
    const messages: Conversation['messages'] = [];
    for (let i = 0; i < 30; i++) {
      messages.push({ id: `u${i}`, role: 'user', content: `Question ${i}`, createdAt: i });
      messages.push({ id: `a${i}`, role: 'assistant', content: `Answer ${i}`, createdAt: i, status: 'done' });
    }
    t.send(t.state(conversation(messages)));
    const first = t.$$('article');
    assert.ok(first.length >= 2 && first.length < 60, `only the last messages at first (${first.length})`);
    assert.equal(first.at(-1)!.dataset.messageId, 'a29');
    const last = first.at(-1);
    while (t.frame() > 0) {
      // the earlier messages are built frame by frame
    }
    const all = t.$$('article');
    assert.equal(all.length, 60);
    assert.deepEqual(
      all.map((a) => a.dataset.messageId),
      messages.map((m) => m.id),
    );
    assert.equal(all.at(-1), last, 'the messages shown first are kept, not built again');
  });

  it('opens sources from citations and the sources list, links through the host, and code through the host', () => {
    const t = setup();
    const answer: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      content: 'See [2] and [the wiki](https://wiki.example/a). Also [2].\n\n```js\nconst x = 1;\n```\n',
      sources: [
        { kind: 'passage', storeId: 'vs', fileId: 'f1', content: 'one', number: 1 },
        { kind: 'passage', storeId: 'vs', fileId: 'f2', filename: 'two.md', content: 'two', number: 2 },
      ],
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    };
    t.send(t.state(conversation([question, answer])));
    t.click(t.$('a.citation'));
    assert.deepEqual(t.posted.at(-1), { type: 'openSource', messageId: 'a1', number: 2, citation: 0 });
    // The second citation of [2]: the host scrolls to what that one quotes.
    t.click(t.$$('a.citation[data-citation="2"]')[1]!);
    assert.deepEqual(t.posted.at(-1), { type: 'openSource', messageId: 'a1', number: 2, citation: 1 });
    t.click(t.$$('.source-link')[0]!);
    assert.deepEqual(t.posted.at(-1), { type: 'openSource', messageId: 'a1', number: 1 });
    assert.deepEqual(
      t.$$('.source.cited').map((li) => li.querySelector('.source-number')!.textContent),
      ['[2]'],
    );
    t.click(t.$('[data-href]'));
    assert.deepEqual(t.posted.at(-1), { type: 'openLink', href: 'https://wiki.example/a' });
    t.click(t.$('[data-action="copy"] .codicon'));
    assert.deepEqual(t.posted.at(-1), { type: 'copyCode', code: 'const x = 1;\n' });
    t.click(t.$('[data-action="insert"]'));
    assert.deepEqual(t.posted.at(-1), { type: 'insertCode', code: 'const x = 1;\n' });
    assert.match(t.$('.usage')!.textContent ?? '', /10 prompt · 5 completion · 15 tokens/);
  });

  it("makes an answer's Sources list one Tab stop, moved through with the arrow keys, Home and End; Enter opens the source", () => {
    const t = setup();
    const passage = (number: number) => ({
      kind: 'passage' as const,
      storeId: 'vs',
      fileId: `f${number}`,
      filename: `${number}.md`,
      content: 'text',
      number,
    });
    const answer: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      content: 'Kept ten years [1].',
      sources: [
        passage(1),
        // A web source that is not a web address is not a link: the arrows pass over it.
        { kind: 'web', url: 'javascript:alert(1)', title: 'bad', content: 'x', number: 2 },
        passage(3),
        passage(4),
      ],
    };
    t.send(t.state(conversation([question, answer])));
    const links = t.$$('.sources .source-link[data-source]');
    assert.deepEqual(
      links.map((link) => link.dataset.source),
      ['1', '3', '4'],
    );
    const stops = () => links.filter((link) => link.getAttribute('tabindex') === '0').map((link) => link.dataset.source);
    assert.deepEqual(stops(), ['1'], 'one Tab stop: the first source');
    const focused = () => (dom.window.document.activeElement as HTMLElement | null)?.dataset.source;
    links[0]!.focus();
    t.key(links[0]!, 'ArrowDown');
    assert.equal(focused(), '3');
    assert.deepEqual(stops(), ['3'], 'the source last focused is the Tab stop');
    t.key(links[1]!, 'End');
    assert.equal(focused(), '4');
    t.key(links[2]!, 'ArrowDown');
    assert.equal(focused(), '4', 'Down on the last source stays there');
    t.key(links[2]!, 'Home');
    assert.equal(focused(), '1');
    t.key(links[0]!, 'ArrowUp');
    assert.equal(focused(), '1');
    t.key(links[0]!, 'ArrowDown', { shiftKey: true });
    assert.equal(focused(), '1', 'Shift+Down is left to the page');
    t.key(links[1]!, 'Enter');
    assert.deepEqual(t.posted.at(-1), { type: 'openSource', messageId: 'a1', number: 3 });
    // The answer's own citation stays a Tab stop of its own.
    assert.equal(t.$('a.citation')!.getAttribute('tabindex'), '0');
  });

  it('names in the Sources list the section of the sentence the answer quotes, not the one its passage starts in', () => {
    const t = setup();
    // One passage that starts in "Use DocChat from your agent" and runs on into "Settings".
    const passage = (number: number, fileId: string) => ({
      kind: 'passage' as const,
      storeId: 'vs',
      storeName: 'demo',
      fileId,
      filename: 'README.md',
      heading: 'DocChat > What it does > Use DocChat from your agent',
      content: [
        '### Use DocChat from your agent',
        'Agents reach DocChat through its MCP server.',
        '## Settings',
        'Results are ranked by relevance before they are shown.',
      ].join('\n\n'),
      score: 0.5,
      number,
    });
    const answer: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      content: '- "Results are ranked by relevance before they are shown." [1]\n- Nothing of it is quoted here [2].',
      sources: [passage(1, 'f1'), passage(2, 'f2')],
    };
    t.send(t.state(conversation([question, answer])));
    assert.deepEqual(
      t.$$('.sources .source-detail').map((e) => e.textContent),
      ['demo · DocChat > Settings · score 0.50', 'demo · DocChat > What it does > Use DocChat from your agent · score 0.50'],
    );

    // Streamed: the list shows the passage's own heading until the quote has arrived.
    t.send(t.state(conversation([question, pending('a2', 'r2')])), {
      type: 'streamStart',
      requestId: 'r2',
      messageId: 'a2',
      sources: [passage(1, 'f1')],
    });
    assert.equal(t.$('.sources .source-detail')!.textContent, 'demo · DocChat > What it does > Use DocChat from your agent · score 0.50');
    t.send(
      { type: 'streamDelta', requestId: 'r2', text: '"Results are ranked by relevance before they are shown." [1]' },
      { type: 'streamDone', requestId: 'r2', stopped: false },
    );
    assert.equal(t.$('.sources .source-detail')!.textContent, 'demo · DocChat > Settings · score 0.50');
  });

  it("names a complete answer's citation links by the quoted section, as its Sources list does; while streaming, by the passage heading", () => {
    const t = setup();
    // One passage that starts in "Use DocChat from your agent" and runs on into "Settings".
    const passage = (number: number, fileId: string) => ({
      kind: 'passage' as const,
      storeId: 'vs',
      fileId,
      filename: 'README.md',
      heading: 'DocChat > What it does > Use DocChat from your agent',
      content: [
        '### Use DocChat from your agent',
        'Agents reach DocChat through its MCP server.',
        '## Settings',
        'Results are ranked by relevance before they are shown.',
      ].join('\n\n'),
      number,
    });
    const names = (messageId: string) =>
      t
        .$$(`article[data-message-id="${messageId}"] a.citation`)
        .map((a) => [a.getAttribute('data-citation'), a.getAttribute('title'), a.getAttribute('aria-label')]);
    const quoted = 'Source 1: README.md, section "Settings"';
    const own = 'Source 2: README.md, section "Use DocChat from your agent"';
    const answer: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      content: '"Results are ranked by relevance before they are shown." [1] Nothing of it is quoted here [2].',
      sources: [passage(1, 'f1'), passage(2, 'f2')],
    };
    t.send(t.state(conversation([question, answer])));
    assert.deepEqual(names('a1'), [
      ['1', quoted, quoted],
      ['2', own, own],
    ]);

    // Streamed: the passage's own heading until the answer is complete, then the quoted one.
    t.send(t.state(conversation([question, pending('a2', 'r2')])), {
      type: 'streamStart',
      requestId: 'r2',
      messageId: 'a2',
      sources: [passage(1, 'f1')],
    });
    t.send({ type: 'streamDelta', requestId: 'r2', text: '"Results are ranked by relevance before they are shown." [1]\n\nMore' });
    t.frame();
    const streaming = 'Source 1: README.md, section "Use DocChat from your agent"';
    assert.deepEqual(names('a2'), [['1', streaming, streaming]]);
    t.send({ type: 'streamDone', requestId: 'r2', stopped: false });
    assert.deepEqual(names('a2'), [['1', quoted, quoted]]);
    assert.equal(t.$('article[data-message-id="a2"] .sources .source-detail')!.textContent, 'DocChat > Settings');
  });

  it("shows token usage in the page's number format, with one formatter for every answer", () => {
    const t = setup();
    const answers: AssistantMessage[] = [1, 2, 3].map((i) => ({
      id: `a${i}`,
      role: 'assistant',
      createdAt: 2 + i,
      status: 'done',
      content: `Answer ${i}.`,
      usage: { promptTokens: 1_234_567 * i, completionTokens: 890 * i, totalTokens: (1_234_567 + 890) * i },
    }));
    const formatted: unknown[] = [];
    const toLocaleString = Number.prototype.toLocaleString;
    Number.prototype.toLocaleString = function (this: number, ...args: Parameters<typeof toLocaleString>) {
      formatted.push(this.valueOf());
      return toLocaleString.apply(this, args);
    };
    try {
      t.send(t.state(conversation([question, ...answers])));
    } finally {
      Number.prototype.toLocaleString = toLocaleString;
    }
    const numbers = new Intl.NumberFormat();
    assert.deepEqual(
      t.$$('.usage').map((e) => e.textContent),
      answers.map(
        (a) =>
          `${numbers.format(a.usage!.promptTokens)} prompt · ${numbers.format(a.usage!.completionTokens)} completion · ${numbers.format(a.usage!.totalTokens)} tokens`,
      ),
    );
    assert.equal(
      t.$$('.usage')[0]!.textContent,
      `${(1_234_567).toLocaleString()} prompt · 890 completion · ${(1_235_457).toLocaleString()} tokens`,
    );
    // No formatter built per number: toLocaleString makes one on every call.
    assert.deepEqual(formatted, []);
  });

  it('shows no token usage on a local-extractive answer, which generates nothing, and shows it for a model that does', () => {
    const t = setup();
    const usage = { promptTokens: 12_079, completionTokens: 200, totalTokens: 12_279 };
    const quoted: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      content: 'Ten years.',
      model: 'local-extractive',
      usage,
    };
    const generated: AssistantMessage = { ...quoted, id: 'a2', createdAt: 3, model: 'alpha-5-mini' };
    t.send(t.state(conversation([question, quoted, { ...question, id: 'u2' }, generated])));
    assert.equal(t.$('article[data-message-id="a1"] .usage'), null);
    assert.match(t.$('article[data-message-id="a2"] .usage')!.textContent ?? '', /prompt · .* completion/);
  });

  it('names each citation link by the file and section of its source, for the pointer and for screen readers', () => {
    const t = setup();
    const answer: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      content: 'Invoices are kept ten years [1], contracts six [2].',
      sources: [
        { kind: 'passage', storeId: 'vs', fileId: 'f1', filename: 'policy.md', heading: 'Retention > Invoices', content: 'one', number: 1 },
        { kind: 'passage', storeId: 'vs', fileId: 'f2', filename: 'contracts.md', content: 'two', number: 2 },
      ],
    };
    t.send(t.state(conversation([question, answer])));
    const links = t.$$('a.citation');
    assert.deepEqual(
      links.map((a) => [a.getAttribute('title'), a.getAttribute('aria-label')]),
      [
        ['Source 1: policy.md, section "Invoices"', 'Source 1: policy.md, section "Invoices"'],
        ['Source 2: contracts.md', 'Source 2: contracts.md'],
      ],
    );
  });

  it('says "not quoted in the answer" of the sources an answer searched but did not cite, once it is complete', () => {
    const t = setup();
    startTwoSourceAnswer(t);
    t.send({ type: 'streamDelta', requestId: 'r1', text: 'Ten years [2].' });
    t.frame();
    // While it streams, source 1 may still be quoted.
    assert.deepEqual(t.$$('.source-uncited'), []);
    t.send({ type: 'streamDone', requestId: 'r1', stopped: false });
    t.frame();
    const label = (n: number) => t.$$('.source')[n - 1]!.querySelector('.source-uncited')?.textContent;
    assert.equal(label(1), 'not quoted in the answer');
    assert.equal(label(2), undefined);
    // Inside the link: its accessible name says it too.
    assert.match(t.$$('.source-link')[0]!.textContent ?? '', /policy\.md.*not quoted in the answer/);
  });

  const endings: Array<[string, HostMessage]> = [
    [
      'failed: there is no answer to quote them',
      {
        type: 'streamError',
        requestId: 'r1',
        error: { kind: 'model_unavailable', message: 'whisper-1 cannot answer chat questions.', actions: ['chooseModel'] },
      },
    ],
    ['was stopped: it did not get to quote them', { type: 'streamDone', requestId: 'r1', stopped: true }],
  ];
  for (const [how, ending] of endings) {
    it(`does not say "not quoted in the answer" of the sources of an answer that ${how}`, () => {
      const t = setup();
      startTwoSourceAnswer(t);
      t.send({ type: 'streamDelta', requestId: 'r1', text: 'Ten' });
      t.frame();
      t.send(ending);
      t.frame();
      assert.equal(t.$$('.source').length, 2, 'the sources searched are still listed');
      assert.deepEqual(t.$$('.source-uncited'), []);
    });
  }

  it('shows the excerpt of each source as plain text cut at a word, without markdown marks', () => {
    const t = setup();
    const content = `## Folder sync\n\n**Sync Folder to Vector Store…** picks the store.\n\n| key | value |\n|---|---|\n| a | b |\n${'word '.repeat(80)}`;
    const sources: AssistantMessage['sources'] = [
      { kind: 'passage', storeId: 'vs', fileId: 'f1', filename: 'guide.md', content, number: 1 },
    ];
    t.send(t.state(conversation([question, pending('a1', 'r1')])));
    t.send({ type: 'streamStart', requestId: 'r1', messageId: 'a1', sources });
    t.send({ type: 'streamDone', requestId: 'r1', stopped: false });
    t.frame();
    const excerpt = t.$$('.source-snippet')[0]!.textContent ?? '';
    assert.match(excerpt, /^Folder sync Sync Folder to Vector Store… picks the store\./);
    assert.doesNotMatch(excerpt, /##|\*\*|\|/);
    assert.match(excerpt, /word…$/, 'cut after a whole word');
  });

  it('shows the excerpt of a cited source at the sentence the answer quoted, and of an uncited one at its match for the query', () => {
    const t = setup();
    // Two neighbouring chunks of README.md joined into one source under the first one's heading.
    const joined = [
      '### Search',
      '**Search Vector Store…** shows results as you type, each with its file, score and a snippet around the match. Pick one to open the passage highlighted, add it to the chat as context, or reveal the file in the tree.',
      '### Folder sync',
      '**Sync Folder to Vector Store…** keeps a store in step with a workspace folder: it shows the plan before it acts and never uploads a file twice.',
    ].join('\n\n');
    // Long enough to be cut (an excerpt shows a sentence once, so each is a different one).
    const checks = Array.from({ length: 6 }, (_, i) => `Check ${i + 1} opens the output channel to see what went wrong. `).join('');
    const other = `## Troubleshooting\n\n${checks}A folder sync that fails says which file failed.`;
    const answer: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      searchQuery: 'How do I sync a folder?',
      content: '- "Sync Folder to Vector Store… keeps a store in step with a workspace folder" [1]',
      sources: [
        { kind: 'passage', storeId: 'vs', fileId: 'f1', filename: 'README.md', heading: 'DocChat > Search', content: joined, number: 1 },
        { kind: 'passage', storeId: 'vs', fileId: 'f2', filename: 'guide.md', heading: 'Troubleshooting', content: other, number: 2 },
      ],
    };
    t.send(t.state(conversation([question, answer])));
    const details = t.$$('.sources .source-detail').map((e) => e.textContent);
    const excerpts = t.$$('.sources .source-snippet').map((e) => e.textContent ?? '');
    assert.equal(details[0], 'DocChat > Folder sync', `named by the section of the quote: ${excerpts[0]}`);
    assert.match(
      excerpts[0]!,
      /^…Sync Folder to Vector Store… keeps a store in step with a workspace folder/,
      'the excerpt is where the quote is: ' + excerpts[0],
    );
    assert.doesNotMatch(excerpts[0]!, /shows results as you type/);
    assert.match(excerpts[1]!, /^….*\bsync\b/i, 'the uncited source at its match for the query');
    assert.match(excerpts[1]!, /A folder sync that fails says which file failed\.$/);
  });

  it('shows the scores of a Sources list only when they read in its order, saying what they are', () => {
    const t = setup();
    const passage = (number: number, score: number) => ({
      kind: 'passage' as const,
      storeId: 'vs',
      storeName: 'demo',
      fileId: `f${number}`,
      filename: `doc${number}.md`,
      content: `Passage ${number}.`,
      score,
      number,
    });
    const answer = (id: string, scores: number[]): AssistantMessage => ({
      id,
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      content: 'Passage 1 [1].',
      sources: scores.map((score, i) => passage(i + 1, score)),
    });
    // One search: best first.
    t.send(t.state(conversation([question, answer('a1', [0.89, 0.87, 0.5])])));
    assert.deepEqual(
      t.$$('.sources .source-detail').map((e) => e.textContent),
      ['demo · score 0.89', 'demo · score 0.87', 'demo · score 0.50'],
    );
    assert.equal(
      t.$('.sources .source-score')!.getAttribute('title'),
      'Score 0.89: how well the passage matched the search that found it (0 to 1)',
    );
    // A follow-up's sources, fused from several searches: each one's first score is out of the list's order.
    t.send(t.state(conversation([question, answer('a2', [0.89, 0.49, 0.79, 0.5])])));
    assert.deepEqual(
      t.$$('.sources .source-detail').map((e) => e.textContent),
      ['demo', 'demo', 'demo', 'demo'],
    );
    assert.equal(t.$('.sources .source-score'), null);
    assert.deepEqual(
      t.$$('.sources .source-number').map((e) => e.textContent),
      ['[1]', '[2]', '[3]', '[4]'],
      'in the order they were numbered',
    );
  });

  it('invites questions about documents (not code) in an empty chat', () => {
    const t = setup();
    t.send(t.state(conversation([])));
    assert.match(t.root.textContent ?? '', /Ask a question about your documents\./);
    assert.doesNotMatch(t.root.textContent ?? '', /your code/);
  });

  it('a rate limit holds Retry until its wait has passed, counting down, then Retry asks again', () => {
    // The countdown reads Date.now and ticks on setInterval: both are driven by hand here.
    const clock = manualClock();
    try {
      const t = setup();
      t.send(
        t.state(conversation([question, pending()])),
        { type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: [] },
        { type: 'streamDelta', requestId: 'r1', text: 'Partial' },
      );
      t.send({
        type: 'streamError',
        requestId: 'r1',
        error: { kind: 'rate_limit', message: 'Rate limited. Try again in 60 s.', retryAfterMs: 60_000, actions: ['retry'] },
      });
      const retry = t.$<HTMLButtonElement>('.action-retry')!;
      assert.equal(retry.disabled, true);
      assert.equal(retry.textContent?.trim(), 'Retry in 60 s');
      assert.match(t.$('.markdown-body')!.textContent ?? '', /Partial/, 'what arrived stays');
      clock.advance(30_000);
      assert.equal(retry.disabled, true, 'still held half way');
      assert.equal(retry.textContent?.trim(), 'Retry in 30 s');
      clock.advance(30_000);
      assert.equal(retry.disabled, false, 'Retry is enabled once the wait has passed');
      assert.equal(retry.textContent?.trim(), 'Retry');
      assert.equal(clock.intervals(), 0, 'the countdown stops');
      t.click(retry);
      assert.deepEqual(t.posted.at(-1), { type: 'regenerate', messageId: 'a1' });
    } finally {
      clock.restore();
    }
  });

  it('shows an error inline with its actions, each posting its command', () => {
    const t = setup();
    t.send(t.state(conversation([question, { ...pending('a2', 'r2') }])));
    t.send({ type: 'streamError', requestId: 'r2', error: { kind: 'auth', message: 'Rejected.', actions: ['setGatewayApiKey', 'retry'] } });
    assert.equal(t.$('.inline-error .error-message')!.textContent, 'Rejected.');
    t.click(t.$('.action-setGatewayApiKey'));
    assert.deepEqual(t.posted.at(-1), { type: 'runAction', action: 'setGatewayApiKey' });
    t.click(t.$('.action-retry'));
    assert.deepEqual(t.posted.at(-1), { type: 'regenerate', messageId: 'a2' });
  });

  it("offers Restart Backend and Retry when Local mode's backend stopped, posting the restart of that answer (the last one only)", () => {
    const t = setup();
    const stopped = localBackendStoppedError();
    t.send(t.state(conversation([question, { ...pending('a2', 'r2') }])));
    t.send({ type: 'streamError', requestId: 'r2', error: stopped });
    assert.match(t.$('.inline-error .error-message')!.textContent ?? '', /local backend stopped/);
    const button = t.$<HTMLButtonElement>('.action-restartLocalBackend')!;
    assert.equal(button.textContent?.trim(), 'Restart Backend and Retry');
    assert.equal(button.disabled, false);
    t.click(button);
    assert.deepEqual(t.posted.at(-1), { type: 'restartBackend', messageId: 'a2' });
    // An earlier answer's button would replace the last one: it is disabled.
    const failed: AssistantMessage = { ...pending('a1', 'r1'), status: 'error', error: stopped };
    t.send(
      t.state(conversation([question, failed, { ...question, id: 'u2' }, { ...pending('a2', 'r2'), status: 'done', content: 'Ok.' }])),
    );
    assert.equal(t.$<HTMLButtonElement>('article[data-message-id="a1"] .action-restartLocalBackend')!.disabled, true);
  });

  it('offers another model and local-extractive (no Retry) for a model that cannot chat, and marks it unavailable in the model list', () => {
    const t = setup();
    t.send(t.state(conversation([question, { ...pending('a2', 'r2') }])));
    t.send({
      type: 'streamError',
      requestId: 'r2',
      error: {
        kind: 'model_unavailable',
        message: 'whisper-1 cannot answer chat questions: "whisper-1" does not support chat.',
        actions: ['chooseModel', 'useLocalExtractive'],
        unavailable: { reason: '"whisper-1" does not support chat' },
      },
    });
    assert.equal(t.$('.action-retry'), null);
    const back = t.$<HTMLButtonElement>('.action-useLocalExtractive')!;
    assert.equal(back.textContent?.trim(), 'Use local-extractive');
    t.click(back);
    assert.deepEqual(t.posted.slice(-2), [
      { type: 'setModel', model: 'local-extractive' },
      { type: 'regenerate', messageId: 'a2' },
    ]);
    t.send({
      type: 'models',
      catalog: {
        loading: false,
        defaultModel: 'local-extractive',
        models: [
          { id: 'local-extractive', kind: 'completion' },
          { id: 'tiny-chat', kind: 'completion' },
          { id: 'whisper-1', kind: 'completion', unavailable: '"whisper-1" does not support chat' },
        ],
      },
    });
    assert.deepEqual(
      t.$$('.model-select option').map((o) => o.textContent),
      ['local-extractive', 'tiny-chat', 'whisper-1 — unavailable: "whisper-1" does not support chat'],
    );
  });

  it('keeps showing a refused model as chosen, its reason in the option and the tooltip; a model just chosen is not "not in the list" while the list loads', () => {
    const t = setup();
    t.send(t.state(conversation([question], { options: {} })));
    const models = (loading: boolean, ids: Array<{ id: string; unavailable?: string }>) =>
      t.send({
        type: 'models',
        catalog: { loading, defaultModel: 'whisper-1', models: ids.map((m) => ({ kind: 'completion' as const, ...m })) },
      });
    models(true, [{ id: 'local-extractive' }]);
    const select = t.$<HTMLSelectElement>('.model-select')!;
    assert.equal(select.value, 'whisper-1');
    assert.deepEqual(
      t.$$('.model-select option').map((o) => o.textContent),
      ['whisper-1', 'local-extractive'],
    );
    models(false, [{ id: 'local-extractive' }, { id: 'whisper-1', unavailable: '"whisper-1" does not support chat' }]);
    assert.equal(select.value, 'whisper-1', 'the refused model stays chosen until the user chooses');
    assert.equal(select.selectedOptions[0]?.textContent, 'whisper-1 — unavailable: "whisper-1" does not support chat');
    assert.equal(select.title, 'Model: whisper-1 — unavailable: "whisper-1" does not support chat');
  });

  it('offers Open Settings when no gateway is configured, posting the action the host maps to the setting', () => {
    const t = setup();
    t.send(t.state(conversation([question, { ...pending('a2', 'r2') }])));
    const error = notConnectedError('noUrl')!;
    t.send({ type: 'streamError', requestId: 'r2', error });
    const button = t.$('.action-openGatewaySettings')!;
    assert.equal(button.textContent?.trim(), 'Open Settings');
    t.click(button);
    assert.deepEqual(t.posted.at(-1), { type: 'runAction', action: 'openGatewaySettings' });
  });

  it('offers the ways forward of an answer without sources as buttons that run their commands, also after a reload', () => {
    const t = setup();
    t.send(t.state(conversation([question, pending()])), { type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: [] });
    t.send({ type: 'streamDelta', requestId: 'r1', text: 'This chat is not grounded in a vector store.' });
    assert.equal(t.$$('.next-steps button').length, 0, 'no buttons while the answer streams');
    t.send({ type: 'streamDone', requestId: 'r1', stopped: false, nextSteps: ['chooseStore', 'attachFiles', 'useLanguageModel'] });
    assert.deepEqual(
      t.$$('.next-steps button').map((b) => b.textContent?.trim()),
      ['Choose a Store', 'Attach Files', 'Use a Language Model…'],
    );
    assert.equal(t.$$('.inline-error').length, 0, 'shown as an answer, not as an error');
    t.click(t.$('.next-steps .action-useLanguageModel'));
    assert.deepEqual(t.posted.at(-1), { type: 'runAction', action: 'useLanguageModel' });
    t.click(t.$('.next-steps .action-chooseStore'));
    assert.deepEqual(t.posted.at(-1), { type: 'runAction', action: 'chooseStore' });
    const stored: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      content: 'No passage matches.',
      createdAt: 2,
      status: 'done',
      nextSteps: ['chooseStore', 'attachFiles'],
    };
    t.app.receive(t.state(conversation([question, stored], { id: 'c2' })));
    assert.deepEqual(
      t.$$('.next-steps button').map((b) => b.textContent?.trim()),
      ['Choose a Store', 'Attach Files'],
    );
    // An answer the documents did not cover: its search opens with the words that answer searched for.
    const notCovered: AssistantMessage = { ...stored, id: 'a3', nextSteps: ['searchDocuments', 'chooseStore', 'attachFiles'] };
    t.app.receive(t.state(conversation([question, notCovered], { id: 'c3' })));
    assert.deepEqual(
      t.$$('.next-steps button').map((b) => b.textContent?.trim()),
      ['Search the Documents', 'Choose a Store', 'Attach Files'],
    );
    t.click(t.$('.next-steps .action-searchDocuments'));
    assert.deepEqual(t.posted.at(-1), { type: 'searchDocuments', messageId: 'a3' });
  });

  it('lists models with the legacy ones marked and their retirement date, and posts the choice', () => {
    const t = setup();
    t.send(t.state(conversation()), {
      type: 'models',
      catalog: {
        loading: false,
        defaultModel: 'local-extractive',
        models: [
          { id: 'local-extractive', kind: 'completion' },
          { id: 'o3-mini', kind: 'legacy', retirement: 'December 17' },
        ],
      },
    });
    const select = t.$<HTMLSelectElement>('.model-select')!;
    assert.equal(select.value, 'local-extractive');
    const legacy = Array.from(select.querySelectorAll('optgroup'))[1]!;
    assert.match(legacy.getAttribute('label') ?? '', /Legacy.*retires December 17/);
    assert.match(legacy.textContent ?? '', /o3-mini — legacy, retires December 17/);
    select.value = 'o3-mini';
    select.dispatchEvent(new dom.window.Event('change'));
    assert.deepEqual(t.posted.at(-1), { type: 'setModel', model: 'o3-mini' });
  });

  it('offers the vector stores (or none) and the conversation options', () => {
    const t = setup();
    t.send(t.state(conversation([], { options: { temperature: 0.5 } })), {
      type: 'stores',
      catalog: { loading: false, stores: [{ id: 'vs_1', name: 'policies' }] },
    });
    const store = t.$<HTMLSelectElement>('.store-select')!;
    assert.deepEqual(
      Array.from(store.options).map((o) => o.textContent),
      ['No grounding (no vector store)', 'policies', 'Several stores…'],
    );
    store.value = 'vs_1';
    store.dispatchEvent(new dom.window.Event('change'));
    assert.deepEqual(t.posted.at(-1), { type: 'setVectorStore', storeId: 'vs_1' });
    assert.equal(t.$<HTMLInputElement>('.temperature')!.value, '0.5');
    const tokens = t.$<HTMLInputElement>('.max-tokens')!;
    tokens.value = '300';
    tokens.dispatchEvent(new dom.window.Event('change'));
    assert.deepEqual(t.posted.at(-1), { type: 'setOptions', temperature: 0.5, maxCompletionTokens: 300 });
    assert.match(t.$('.project-code')!.textContent ?? '', /P-7/);
    // The host answers with the options alone; the messages are not sent or built again.
    t.send({ type: 'options', conversationId: 'c1', options: { vectorStoreId: 'vs_1', vectorStoreName: 'policies', temperature: 1 } });
    assert.equal(store.value, 'vs_1');
    assert.equal(t.$<HTMLInputElement>('.temperature')!.value, '1');
    t.send({ type: 'options', conversationId: 'other', options: {} });
    assert.equal(store.value, 'vs_1', 'options of another conversation are not shown');
  });

  it('marks a deleted store once every store is listed (no second "demo"), says so and offers Choose a Store', () => {
    const t = setup();
    const grounded = conversation([], { options: { vectorStoreId: 'vs_old', vectorStoreName: 'demo' } });
    t.send(t.state(grounded), { type: 'stores', catalog: { loading: false, stores: [{ id: 'vs_new', name: 'demo' }] } });
    const store = t.$<HTMLSelectElement>('.store-select')!;
    assert.equal(t.$('.store-gone'), null, 'a first page of stores cannot tell that a store is gone');
    t.send({ type: 'stores', catalog: { loading: false, complete: true, stores: [{ id: 'vs_new', name: 'demo' }] } });
    assert.deepEqual(
      Array.from(store.options).map((o) => o.textContent),
      ['No grounding (no vector store)', 'demo (deleted)', 'demo', 'Several stores…'],
    );
    assert.equal(store.value, 'vs_old');
    assert.equal(store.title, 'The vector store “demo” no longer exists: choose a store for this chat', 'the tooltip says it too');
    assert.match(t.$('.store-gone')!.textContent ?? '', /“demo” no longer exists/);
    t.click(t.$('.store-gone .choose-store'));
    assert.deepEqual(t.posted.at(-1), { type: 'runAction', action: 'chooseStore' });
    t.send({ type: 'options', conversationId: 'c1', options: { vectorStoreId: 'vs_new', vectorStoreName: 'demo' } });
    assert.equal(t.$('.store-gone'), null, 'gone once another store is chosen');
    assert.equal(store.title, 'Answers are grounded in demo');
  });

  it('asks to pick a store only while none is picked; then says which store answers search', () => {
    const t = setup();
    t.send(t.state(conversation()));
    assert.match(t.$('.empty-state .hint')!.textContent ?? '', /Pick a vector store above/);
    t.send({ type: 'options', conversationId: 'c1', options: { vectorStoreId: 'vs_1', vectorStoreName: 'demo' } });
    assert.equal(t.$('.empty-state .hint')!.textContent, 'Answers search “demo” and cite their sources as [1], [2], …');
  });

  it('offers Choose a Store on an answer whose store was deleted, and Choose a Model moves the focus to the model picker', () => {
    const t = setup();
    const failed = (kind: 'store_gone' | 'model_unavailable', actions: Array<'chooseStore' | 'chooseModel'>): AssistantMessage => ({
      ...pending(kind),
      status: 'error',
      error: { kind, message: 'x', actions },
    });
    t.send(t.state(conversation([question, failed('store_gone', ['chooseStore'])])));
    assert.deepEqual(
      t.$$('.inline-error button').map((b) => b.textContent),
      ['Choose a Store'],
    );
    t.click(t.$('.inline-error .action-chooseStore'));
    assert.deepEqual(t.posted.at(-1), { type: 'runAction', action: 'chooseStore' });
    t.send(t.state(conversation([question, failed('model_unavailable', ['chooseModel'])])));
    t.click(t.$('.inline-error .action-chooseModel'));
    assert.equal(dom.window.document.activeElement, t.$('.model-select'));
  });

  it('shows a conversation grounded in several stores, and opens the multi-select picker for "Several stores…"', () => {
    const t = setup();
    const options = {
      vectorStoreId: 'vs_1',
      vectorStoreName: 'policies',
      vectorStores: [
        { id: 'vs_1', name: 'policies' },
        { id: 'vs_2', name: 'runbooks' },
      ],
    };
    t.send(t.state(conversation([], { options })), {
      type: 'stores',
      catalog: {
        loading: false,
        stores: [
          { id: 'vs_1', name: 'policies' },
          { id: 'vs_2', name: 'runbooks' },
        ],
      },
    });
    const store = t.$<HTMLSelectElement>('.store-select')!;
    assert.equal(store.selectedOptions[0]!.textContent, '2 stores: policies, runbooks');
    assert.match(store.title, /policies, runbooks/);
    const several = Array.from(store.options).find((o) => o.textContent === 'Several stores…')!;
    store.value = several.value;
    store.dispatchEvent(new dom.window.Event('change'));
    assert.deepEqual(t.posted.at(-1), { type: 'runAction', action: 'chooseStore' });
    assert.equal(store.selectedOptions[0]!.textContent, '2 stores: policies, runbooks', 'the choice shows until the picker changes it');
  });

  it('shows "Searched for" on a grounded answer; on the last one it can be edited and searched again', () => {
    const t = setup();
    const earlier: AssistantMessage = { ...pending('a0'), status: 'done', content: 'Ten years [1].', searchQuery: 'invoices kept' };
    delete earlier.requestId;
    t.send(t.state(conversation([{ ...question, id: 'u0' }, earlier, question, pending()])));
    t.send(
      { type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: [], searchQuery: 'And its exceptions? retention policy' },
      { type: 'streamDelta', requestId: 'r1', text: 'The finance director.' },
    );
    t.frame();
    assert.equal(t.$$('.searched-for-input').length, 0, 'not editable while the answer streams');
    t.send({ type: 'streamDone', requestId: 'r1', stopped: false });
    const rows = t.$$('.searched-for');
    assert.equal(rows.length, 2);
    assert.match(rows[0]!.textContent ?? '', /Searched for: invoices kept/);
    const input = t.$<HTMLInputElement>('.searched-for-input')!;
    assert.equal(input.value, 'And its exceptions? retention policy');
    assert.ok(input.getAttribute('aria-label'), 'the input has a spoken label');
    input.value = 'retention policy exceptions approval';
    t.key(input, 'Enter');
    assert.deepEqual(t.posted.at(-1), { type: 'searchAgain', messageId: 'a1', query: 'retention policy exceptions approval' });
    input.value = 'retention exceptions';
    t.click(t.$('.search-again'));
    assert.deepEqual(t.posted.at(-1), { type: 'searchAgain', messageId: 'a1', query: 'retention exceptions' });
    // The query is one line that wraps: a pasted line break becomes a space, Shift+Enter searches too.
    input.value = 'retention\r\n  exceptions\napproval';
    input.dispatchEvent(new dom.window.Event('input', { bubbles: true }));
    assert.equal(input.value, 'retention exceptions approval');
    t.key(input, 'Enter', { shiftKey: true });
    assert.deepEqual(t.posted.at(-1), { type: 'searchAgain', messageId: 'a1', query: 'retention exceptions approval' });
  });

  it('shows attached context as removable chips', () => {
    const t = setup();
    t.send(
      t.state(
        conversation([], {
          pendingContext: [
            {
              kind: 'selection',
              uri: 'file:///w/a.ts',
              label: 'a.ts',
              range: { startLine: 0, startCharacter: 0, endLine: 1, endCharacter: 0 },
              content: 'x',
            },
          ],
        }),
      ),
    );
    assert.match(t.$('.pending-context .chip')!.textContent ?? '', /a\.ts, lines 1-2/);
    t.click(t.$('.chip-remove'));
    assert.deepEqual(t.posted.at(-1), { type: 'removeContext', index: 0 });
  });

  it('renders many deltas arriving within one frame once, and reads no layout per delta', () => {
    const t = setup();
    let renders = 0;
    const counting = {
      ...pipeline,
      render: (text: string, env: Parameters<typeof pipeline.render>[1]) => (renders++, pipeline.render(text, env)),
    };
    const frames: Array<() => void> = [];
    const root = dom.window.document.createElement('div');
    dom.window.document.body.replaceChildren(root);
    const app = new ChatApp(
      root as unknown as HTMLElement,
      { postMessage: () => undefined, getState: () => undefined, setState: () => undefined },
      counting,
      (callback) => frames.push(callback),
    );
    app.receive(t.state(conversation([question, pending()])));
    app.receive({ type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: [] });
    const list = root.querySelector('.messages')!;
    let layoutReads = 0;
    for (const property of ['scrollHeight', 'clientHeight', 'scrollTop'] as const) {
      Object.defineProperty(list, property, { configurable: true, get: () => (layoutReads++, 0), set: () => undefined });
    }
    while (frames.length) frames.shift()!();
    renders = 0;
    layoutReads = 0;

    for (let i = 0; i < 200; i++) app.receive({ type: 'streamDelta', requestId: 'r1', text: `word${i} ` });
    assert.equal(renders, 0, 'nothing renders before the frame');
    assert.equal(layoutReads, 0, 'no layout is read per delta');
    assert.equal(frames.length, 1, 'one frame is requested for all the deltas');
    frames.shift()!();
    assert.equal(renders, 1, 'the frame renders the buffered text once');
    assert.match(root.querySelector('.markdown-body')!.textContent ?? '', /^word0 word1 .* word199\s*$/);
    assert.ok(layoutReads <= 2, `one scroll check per frame (read ${layoutReads} layout values)`);

    app.receive({ type: 'streamDelta', requestId: 'r1', text: 'end.' });
    app.receive({ type: 'streamDone', requestId: 'r1', stopped: false });
    assert.match(
      root.querySelector('.markdown-body')!.textContent ?? '',
      /word199 end\.\s*$/,
      'the end of the stream renders at once, without waiting for a frame',
    );
  });

  it('keeps every new question and its answer in view: a layout drop is not the user scrolling up, a new question follows again', () => {
    const t = setup();
    t.send(t.state(conversation([question, pending()])), { type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: [] });
    const list = t.$('.messages')!;
    // jsdom has no layout: a list of `height` px of content in a 300 px viewport, scrollTop clamped
    // as a browser clamps it. Scroll events are dispatched by the test, as the browser would.
    let height = 2000;
    let top = 0;
    const viewport = 300;
    Object.defineProperty(list, 'clientHeight', { configurable: true, get: () => viewport });
    Object.defineProperty(list, 'scrollHeight', { configurable: true, get: () => height });
    Object.defineProperty(list, 'scrollTop', {
      configurable: true,
      get: () => top,
      set: (value: number) => (top = Math.max(0, Math.min(value, height - viewport))),
    });
    const scrolled = () => list.dispatchEvent(new dom.window.Event('scroll'));
    const atEnd = () => top === height - viewport;
    const frames = () => {
      while (t.frame());
    };

    t.send({ type: 'streamDelta', requestId: 'r1', text: 'A long answer. ' });
    frames();
    assert.ok(atEnd(), `follows the answer (scrollTop ${top})`);

    // The end of the answer re-renders: the content shrinks for a moment (scrollTop clamps a few px
    // lower), then grows taller than before. No wheel, key or touch: the user did not scroll.
    height -= 6;
    top = Math.min(top, height - viewport);
    height += 400;
    scrolled();
    t.send({ type: 'streamDelta', requestId: 'r1', text: 'More text.' }, { type: 'streamDone', requestId: 'r1', stopped: false });
    frames();
    assert.ok(atEnd(), `a layout change of a few pixels does not stop following (scrollTop ${top}, end ${height - viewport})`);

    // The user scrolls up with the wheel to read: new text no longer moves the list.
    list.dispatchEvent(new dom.window.WheelEvent('wheel', { deltaY: -500 }));
    top = 500;
    scrolled();
    t.send(secondTurn());
    // (the answer was taken while the user read; the host posts the next question's turn)
    height += 1200;
    frames();
    assert.ok(atEnd(), `a new question follows its answer again (scrollTop ${top}, end ${height - viewport})`);
    t.send(
      { type: 'streamStart', requestId: 'r2', messageId: 'a2', sources: [] },
      { type: 'streamDelta', requestId: 'r2', text: 'Five years.' },
    );
    height += 300;
    frames();
    assert.ok(atEnd(), 'and keeps following it as it streams');

    list.dispatchEvent(new dom.window.WheelEvent('wheel', { deltaY: -500 }));
    top = 400;
    scrolled();
    t.send({ type: 'streamDelta', requestId: 'r2', text: ' More.' });
    height += 200;
    frames();
    assert.equal(top, 400, 'the user scrolled up with the wheel: the list stays where they read');
  });

  it('renders at once when much text piles up before a frame comes, so no render grows into a long task', () => {
    const t = setup();
    t.send(t.state(conversation([question, pending()])), { type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: [] });
    t.frame();
    const body = t.$('.markdown-body')!;
    for (let i = 0; i < 10; i++) t.send({ type: 'streamDelta', requestId: 'r1', text: `Sentence ${i} of a fast stream. ` });
    assert.equal(body.textContent, '', 'small pieces wait for the frame');
    t.send({ type: 'streamDelta', requestId: 'r1', text: 'x'.repeat(5000) });
    assert.match(body.textContent ?? '', /^Sentence 0 .*x{5000}/, 'a pile of text renders without waiting');
  });

  it('shows a running tool: its badge, progress from the host, then its web sources (only web addresses open)', () => {
    const t = setup();
    const running: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      content: '',
      createdAt: 2,
      status: 'pending',
      requestId: 'r1',
      tool: 'research',
    };
    t.send(t.state(conversation([{ ...question, content: '/research solar' }, running])));
    assert.equal(t.$('.tool-badge')?.textContent, 'Web research');
    assert.match(t.$('.phase')!.textContent ?? '', /Starting the research/);
    t.send({ type: 'streamProgress', requestId: 'r1', progress: { text: 'Researching… 50% — Reading 4 sources', fraction: 0.5 } });
    assert.match(t.$('.phase')!.textContent ?? '', /Researching… 50% — Reading 4 sources/);
    const bar = t.$<HTMLProgressElement>('progress.tool-progress')!;
    assert.equal(bar.hidden, false);
    assert.equal(bar.value, 0.5);
    t.key(dom.window.document.body, 'Escape');
    assert.deepEqual(t.posted.at(-1), { type: 'stop', requestId: 'r1' }, 'Escape cancels the tool');

    t.send(
      {
        type: 'streamStart',
        requestId: 'r1',
        messageId: 'a1',
        sources: [
          { kind: 'web', url: 'https://example.com/solar', title: 'Solar', content: '', number: 1 },
          { kind: 'web', url: 'javascript:alert(1)', title: 'Not a web link', content: '', number: 2 },
        ],
      },
      { type: 'streamDelta', requestId: 'r1', text: 'Solar grew [1].' },
      { type: 'streamDone', requestId: 'r1', stopped: false },
    );
    assert.equal(bar.hidden, true, 'the progress bar goes with the answer');
    assert.equal(t.$('.phase')!.textContent, '');
    const links = t.$$('.sources .source-link');
    assert.equal(links.length, 2);
    assert.equal(links[1]!.getAttribute('data-source'), null, 'a javascript: source is not clickable');
    assert.match(links[1]!.parentElement!.textContent ?? '', /javascript:alert\(1\)/);
    t.click(t.$('a.citation'));
    assert.deepEqual(t.posted.at(-1), { type: 'openSource', messageId: 'a1', number: 1, citation: 0 });
  });

  it('ends the Model select in Local mode with Use a Language Model…, which runs that command and picks no model', () => {
    const t = setup();
    const models: HostMessage = {
      type: 'models',
      catalog: { loading: false, defaultModel: 'local-extractive', models: [{ id: 'local-extractive', kind: 'completion' }] },
    };
    t.send(t.state(conversation()), models);
    const select = t.$<HTMLSelectElement>('.model-select')!;
    const labels = () => Array.from(select.options).map((o) => o.text);
    assert.deepEqual(labels(), ['local-extractive'], 'a company gateway lists its models only');
    t.send({ ...(t.state(conversation()) as Extract<HostMessage, { type: 'state' }>), webTools: false });
    assert.deepEqual(labels(), ['local-extractive', 'Use a Language Model…']);
    assert.equal(select.value, 'local-extractive');
    select.value = select.options[1]!.value;
    select.dispatchEvent(new dom.window.Event('change'));
    assert.deepEqual(t.posted.at(-1), { type: 'runAction', action: 'useLanguageModel' });
    assert.ok(!t.posted.some((m) => m.type === 'setModel'), 'no model is chosen');
    assert.equal(select.value, 'local-extractive', 'the select shows the model in use again');
  });

  it('runs Use a Language Model… reached with the arrow keys only on Enter, and leaves the model in use when the focus moves on', () => {
    const t = setup();
    t.send(
      { ...(t.state(conversation()) as Extract<HostMessage, { type: 'state' }>), webTools: false },
      {
        type: 'models',
        catalog: { loading: false, defaultModel: 'local-extractive', models: [{ id: 'local-extractive', kind: 'completion' }] },
      },
    );
    const select = t.$<HTMLSelectElement>('.model-select')!;
    const arrowOnto = () => {
      select.dispatchEvent(new dom.window.KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
      select.value = select.options[1]!.value;
      select.dispatchEvent(new dom.window.Event('change'));
    };
    const before = t.posted.length;
    arrowOnto();
    assert.equal(t.posted.length, before, 'passing over it runs nothing');
    assert.equal(select.options[select.selectedIndex]!.text, 'Use a Language Model…');
    select.dispatchEvent(new dom.window.Event('blur'));
    assert.equal(select.value, 'local-extractive', 'left, the select shows the model in use');
    assert.equal(t.posted.length, before);
    arrowOnto();
    select.dispatchEvent(new dom.window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    assert.deepEqual(t.posted.slice(before), [{ type: 'runAction', action: 'useLanguageModel' }]);
    assert.equal(select.value, 'local-extractive');
  });

  it('does not offer /web, /crawl or /research where the gateway has no web tools (Local mode)', () => {
    const t = setup();
    const input = t.$<HTMLTextAreaElement>('textarea')!;
    t.send(t.state(conversation()));
    assert.match(input.placeholder, /\/web/);
    t.send({ ...(t.state(conversation()) as Extract<HostMessage, { type: 'state' }>), webTools: false });
    assert.doesNotMatch(input.placeholder, /\/web|\/crawl|\/research/);
    input.value = '/';
    input.dispatchEvent(new dom.window.Event('input'));
    assert.equal(t.$('.slash-commands')!.hidden, true, 'no suggestions of tools that cannot run');
    t.send(t.state(conversation()));
    input.dispatchEvent(new dom.window.Event('input'));
    assert.equal(t.$('.slash-commands')!.hidden, false, 'offered again once a gateway has them');
  });

  it('hides Temperature and Max tokens for local-extractive, which ignores them, and the project code when none is set', () => {
    const t = setup();
    const shown = (selector: string) => !t.$<HTMLInputElement>(selector)!.closest('label')!.hidden;
    t.send(t.state(conversation([], { options: { model: 'local-extractive' } })));
    assert.equal(shown('.temperature'), false);
    assert.equal(shown('.max-tokens'), false);
    assert.equal(t.$('.sampling-note')!.hidden, false);
    t.send({ type: 'options', conversationId: 'c1', options: { model: 'alpha-5-mini' } });
    assert.equal(shown('.temperature'), true);
    assert.equal(shown('.max-tokens'), true);
    assert.equal(t.$('.sampling-note')!.hidden, true);
    assert.equal(t.$('.project-code')!.hidden, false, 'P-7 is shown');
    t.send({ ...(t.state(conversation()) as Extract<HostMessage, { type: 'state' }>), projectCode: 'NA' });
    assert.equal(t.$('.project-code')!.hidden, true, '"NA" (no project) is not shown');
  });

  it('suggests the slash commands as the user types "/", completes with Enter, closes with Escape', () => {
    const t = setup();
    t.send(t.state(conversation()));
    const input = t.$<HTMLTextAreaElement>('textarea')!;
    assert.match(input.getAttribute('placeholder') ?? '', /\/web, \/crawl, \/research/);
    const type = (value: string) => {
      input.value = value;
      input.dispatchEvent(new dom.window.Event('input'));
    };
    type('/');
    assert.deepEqual(
      t.$$('.slash-command .slash-usage').map((e) => e.textContent),
      ['/web <query>', '/crawl <url…>', '/research <topic>'],
    );
    type('/re');
    assert.deepEqual(
      t.$$('.slash-command .slash-usage').map((e) => e.textContent),
      ['/research <topic>'],
    );
    t.key(input, 'Enter');
    assert.equal(input.value, '/research ');
    assert.equal(t.$('.slash-commands')!.hasAttribute('hidden'), true);
    assert.deepEqual(t.posted, [], 'completing does not send');

    type('/');
    t.key(input, 'ArrowDown');
    assert.equal(t.$('.slash-command.selected .slash-usage')?.textContent, '/crawl <url…>');
    t.key(input, 'Escape');
    assert.equal(t.$('.slash-commands')!.hasAttribute('hidden'), true);
    type('/web solar power');
    assert.equal(t.$('.slash-commands')!.hasAttribute('hidden'), true, 'no suggestions once the command has its argument');
    t.key(input, 'Enter');
    assert.deepEqual(t.posted, [{ type: 'send', text: '/web solar power' }]);
  });

  it('never renders model output as HTML in the DOM', () => {
    const t = setup();
    const evil: AssistantMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 2,
      status: 'done',
      content: '<img src=x onerror="globalThis.pwned=1"><script>globalThis.pwned=1</script>[x](javascript:alert(1))',
    };
    t.send(t.state(conversation([question, evil])));
    assert.equal(t.$('.markdown-body img, .markdown-body script, .markdown-body [href]'), null);
    // jsdom runs no scripts, so a flag set by one proves nothing: the DOM itself is checked. The
    // whole answer is one paragraph of text, the markup shown as written.
    const body = t.$('.markdown-body')!;
    assert.deepEqual(
      Array.from(body.querySelectorAll('*')).map((e) => e.tagName),
      ['P'],
    );
    assert.equal(body.textContent?.trim(), evil.content);
  });
});
