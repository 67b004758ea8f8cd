import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import {
  answerDone,
  askInChat,
  chatPanel,
  chatWebviewFrame,
  commandTitle,
  captureFailures,
  launchVSCode,
  pollUntil,
  retryAnswer,
  startBackendProcess,
  waitForWorkbench,
  type BackendProcess,
  type VSCodeSession,
  openStoreSearch,
} from '../support/harness';
import { chatChunk, ScriptServer, sendJson } from '../support/servers/scriptServer';

// The chat panel in a real VS Code against the embedded backend (its command line, serving both
// services): a grounded question streams in with citations, a citation opens its passage, a long
// answer is stopped mid-stream, errors offer their way forward, and the conversation survives a
// window reload. The backend's upstream is a small scripted server that streams slowly, so there
// is something to stop.

/** Lines of the section before the sentence the first question quotes: more than a screen's worth. */
const SHELVES = Array.from({ length: 40 }, (_, i) => `Shelf ${i + 1} holds the archive boxes of department ${i + 1}.`);
const RETENTION = [
  '# Retention policy',
  '',
  ...SHELVES,
  '',
  // The quoted sentence starts mid-line: its highlight starts where it does, not at the line's start.
  'Paper goes to the archive first. Invoices are kept for ten years after the end of the fiscal year.',
  '',
  'Employment contracts are kept for six years after the employee leaves.',
  '',
  'Meeting notes are deleted after two years unless a project still needs them.',
  '',
].join('\n');
/**
 * The second store's only document (the two-store conversation): short sections, so its one
 * passage starts in "Travel policy" and runs on through "Allowances" and "Booking".
 */
const TRAVEL = [
  '# Travel policy',
  '',
  'This policy applies to every business trip.',
  '',
  '## Allowances',
  '',
  'The daily travel allowance is 45 euros for meals.',
  '',
  '## Booking',
  '',
  'Train tickets are booked in second class.',
  '',
].join('\n');
const CODE = 'export function retentionYears(kind: string): number {\n  return kind === "invoice" ? 10 : 6;\n}\n';
const QUESTION = 'How long are invoices kept?';
const SLOW_MODEL = 'slow-upstream-model';
const FLAKY_MODEL = 'flaky-upstream-model';
const CODE_MODEL = 'code-upstream-model';
const CODE_ANSWER = 'Add this line:\n\n```ts\nconst insertedByDocChat = 42;\n```\n\n| Kind | Years |\n| :--- | ---: |\n| invoice | 10 |\n';
const SLOW_WORDS = 600;
/** The slow model's stream holds after this word until the client closes it. */
const SLOW_HOLD_AFTER = 40;

/**
 * An OpenAI-compatible upstream: one model streams a word every 40 ms, then holds the stream open
 * until the client closes it; one fails once; one answers with code.
 */
async function startUpstream(): Promise<ScriptServer & { streamClosedEarly: boolean }> {
  const server = (await ScriptServer.start()) as ScriptServer & { streamClosedEarly: boolean };
  server.streamClosedEarly = false;
  let flakyCalls = 0;
  server.on('GET', '/v1/models', (_req, res) =>
    sendJson(res, 200, {
      object: 'list',
      data: [SLOW_MODEL, FLAKY_MODEL, CODE_MODEL].map((id) => ({ id, object: 'model', created: 1, owned_by: 'e2e' })),
    }),
  );
  server.on('POST', '/v1/chat/completions', async (req, res: ServerResponse) => {
    if (req.json?.model === FLAKY_MODEL && flakyCalls++ === 0) {
      sendJson(res, 503, { error: { message: `The model ${FLAKY_MODEL} is temporarily unavailable.`, type: 'server_error' } });
      return;
    }
    if (req.json?.model === CODE_MODEL) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(chatChunk(CODE_ANSWER))}\n\ndata: [DONE]\n\n`);
      return;
    }
    res.on('error', () => undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const slow = req.json?.model === SLOW_MODEL;
    const words = slow ? SLOW_WORDS : 5;
    for (let i = 0; i < words; i++) {
      if (res.destroyed || res.writableEnded) {
        server.streamClosedEarly = true;
        return;
      }
      const word = i % 12 === 11 ? `word${i}.\n\n` : `word${i} `;
      res.write(`data: ${JSON.stringify({ ...chatChunk(word), model: req.json.model })}\n\n`);
      if (slow && i === SLOW_HOLD_AFTER) {
        // The stream stays open with nothing more to say until the client closes it, so Stop always
        // comes mid-answer, however slow the machine is.
        await new Promise((resolve) => res.once('close', resolve));
        server.streamClosedEarly = true;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, slow ? 40 : 1));
    }
    res.write(`data: ${JSON.stringify(chatChunk(undefined, { finish_reason: 'stop' }))}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  return server;
}

/** The lines of the active editor on screen, top to bottom, each with whether a highlight is on it. */
async function screenLines(page: VSCodeSession['page']): Promise<{ text: string; highlighted: boolean }[]> {
  return page
    .locator('.editor-group-container.active .monaco-editor')
    .first()
    .evaluate((editor) => {
      // A decoration (whole-line or not) is drawn in the overlay row at the same height as its text line.
      const lit = new Set(
        [...editor.querySelectorAll('.view-overlays [class*="ced-"]')].map((d) => (d.parentElement as HTMLElement).style.top),
      );
      return [...editor.querySelectorAll<HTMLElement>('.view-lines .view-line')]
        .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
        .map((line) => ({ text: (line.textContent ?? '').replace(/\u00a0/g, ' '), highlighted: lit.has(line.style.top) }));
    });
}

/**
 * Where the highlight in the active editor is drawn (its pieces, one a screen line), and where the
 * words `first` and `last` are on screen: the first of `first`, the last of `last`.
 */
async function highlightAndWords(
  page: VSCodeSession['page'],
  first: string,
  last: string,
): Promise<{ pieces: { top: number; left: number; right: number }[]; first?: { left: number }; last?: { right: number } }> {
  return page
    .locator('.editor-group-container.active .monaco-editor')
    .first()
    .evaluate(
      (editor, [firstWord, lastWord]) => {
        const pieces = [...editor.querySelectorAll('.view-overlays [class*="ced-"]')].map((d) => {
          const r = d.getBoundingClientRect();
          return { top: r.top, left: r.left, right: r.right };
        });
        // Screen rectangles of each occurrence of each word on the editor's lines, top to bottom
        // (no named function in here: the test's compiler would wrap it in a helper the page lacks).
        const found: DOMRect[][] = [[], []];
        const lines = [...editor.querySelectorAll<HTMLElement>('.view-lines .view-line')].sort(
          (a, b) => parseFloat(a.style.top) - parseFloat(b.style.top),
        );
        [firstWord, lastWord].forEach((word, i) => {
          for (const line of lines) {
            const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              const text = (node.textContent ?? '').replace(/\u00a0/g, ' ');
              for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
                const range = document.createRange();
                range.setStart(node, at);
                range.setEnd(node, at + word.length);
                found[i]!.push(range.getBoundingClientRect());
              }
            }
          }
        });
        const firstRect = found[0]![0];
        const lastRect = found[1]!.at(-1);
        return {
          pieces,
          ...(firstRect ? { first: { left: firstRect.left } } : {}),
          ...(lastRect ? { last: { right: lastRect.right } } : {}),
        };
      },
      [first, last] as const,
    );
}

describe('Chat panel (e2e, embedded backend)', function () {
  let session: VSCodeSession;
  let backend: BackendProcess;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let seedDir: string;

  const chat = () => chatPanel(session.page);
  const ask = (question: string) => askInChat(chat(), question);
  const finished = (answer: Locator) => answerDone(chat(), answer);

  before(async function () {
    upstream = await startUpstream();
    seedDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-chat-seed-'));
    writeFileSync(path.join(seedDir, 'retention.md'), RETENTION);
    backend = await startBackendProcess({
      token: 'chat-e2e-token',
      apiKey: 'chat-e2e-key',
      args: ['--no-rate-limits', '--upstream', upstream.url, '--seed-demo', seedDir],
    });
    session = await launchVSCode({
      name: 'chat panel',
      settings: {
        'docchat.documents.url': backend.url,
        'docchat.gateway.url': backend.url,
        'docchat.search.maxResults': 3,
        'docchat.gateway.projectCode': 'P-4711',
      },
      workspaceFiles: { 'src/retention.ts': CODE },
      // A cited passage stays highlighted until the test has looked at it.
      env: { DOCCHAT_PASSAGE_HIGHLIGHT_MS: '600000' },
    });
    await session.openView(); // DocChat's contributions are loaded once its container shows
    await session.enterSecret('docchat.setDocumentsToken', backend.token);
    await session.page.locator('.statusbar', { hasText: 'Signed out' }).waitFor({ state: 'detached', timeout: 30_000 });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    await backend?.stop();
    await upstream?.close();
    rmSync(seedDir, { recursive: true, force: true });
  });

  it('opens beside the editor and offers Set API Key inline until the gateway key is set', async () => {
    await session.page.keyboard.press('Control+P');
    const quickOpen = session.page.locator('.quick-input-widget');
    await quickOpen.locator('input.input').fill('retention.ts');
    await quickOpen.locator('.monaco-list-row', { hasText: 'retention.ts' }).first().click({ timeout: 30_000 });
    await session.page.locator('.tabs-container .tab.active', { hasText: 'retention.ts' }).waitFor({ state: 'visible', timeout: 20_000 });
    await session.runCommand(commandTitle('docchat.chat.open'));
    await chatWebviewFrame(session.page);
    assert.equal(await session.page.locator('.editor-group-container').count(), 2, 'the chat opens in a second editor group');

    const answer = await ask('Hello?');
    const error = answer.locator('.inline-error');
    await error.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await error.innerText(), /API key/i);
    await session.screenshot('inline error offers Set API Key');
    await error.locator('.action-setGatewayApiKey').click();
    await session.answerQuickInput(backend.apiKey);
    await chat().locator('.model-select option[value="local-extractive"]').waitFor({ state: 'attached', timeout: 30_000 });
    await answer.locator('.action-retry').click();
    await answer
      .locator('.markdown-body')
      .filter({ hasText: /local-extractive/ })
      .waitFor({ timeout: 30_000 });
    await session.screenshot('answer after setting the key');
  });

  it('lists the gateway models, the legacy models with their retirement date, and the vector stores', async () => {
    const models = chat().locator('.model-select');
    await models.locator(`option[value="${SLOW_MODEL}"]`).waitFor({ state: 'attached', timeout: 30_000 });
    const labels = await models.locator('option').allInnerTexts();
    assert.ok(labels.includes('local-extractive'));
    assert.ok(
      labels.some((l) => /^o3-mini — legacy, retires December 17$/.test(l)),
      JSON.stringify(labels),
    );
    const legacyGroup = await models.locator('optgroup').nth(1).getAttribute('label');
    assert.match(legacyGroup ?? '', /Legacy \(inference endpoint, retires December 17\)/);
    await chat().locator('.store-select option', { hasText: 'demo' }).waitFor({ state: 'attached', timeout: 30_000 });
    await chat().locator('.toolbar .icon-button[aria-label="Conversation options"]').click();
    assert.match(await chat().locator('.project-code').innerText(), /P-4711/);
    await session.screenshot('model and store pickers');
  });

  it('streams a grounded answer whose citations link to the sources, and opens a cited passage', async () => {
    await chat().locator('.toolbar .new-chat').click();
    // The new chat is on screen (empty) before answers are counted.
    await chat().locator('article.message').first().waitFor({ state: 'detached', timeout: 30_000 });
    await chat().locator('.model-select').selectOption('local-extractive');
    await chat().locator('.store-select').selectOption({ label: 'demo' });
    const answer = await ask(QUESTION);
    await answer
      .locator('.markdown-body')
      .filter({ hasText: /Invoices/ })
      .waitFor({ timeout: 30_000 });
    await session.screenshot('grounded answer streaming');
    await finished(answer);

    const text = await answer.locator('.markdown-body').innerText();
    assert.match(text, /Invoices are kept for ten years/);
    const citations = answer.locator('.markdown-body a.citation');
    assert.ok((await citations.count()) >= 1, 'the answer has citation links');
    const sources = answer.locator('.sources .source');
    assert.ok((await sources.count()) >= 1);
    assert.match(await sources.first().innerText(), /retention\.md/);
    // local-extractive generates nothing: the answer shows no token counts (a gateway model's do, see chatGateway).
    assert.equal(await answer.locator('.usage').count(), 0, 'no token usage under a local-extractive answer');
    await session.screenshot('grounded answer with citations and sources');

    await citations.first().click();
    await session.page.locator('.tabs-container .tab', { hasText: 'retention.md' }).waitFor({ state: 'visible', timeout: 30_000 });
    // The passage is the whole section, 40 lines of shelves above the quoted sentence: the quote is
    // highlighted and scrolled into view, not the passage's top.
    const lines = await pollUntil(
      () => screenLines(session.page),
      (shown) => shown.some((line) => line.highlighted && /Invoices are kept/.test(line.text)),
      { timeoutMs: 30_000, what: 'the quoted sentence on screen and highlighted' },
    );
    const highlighted = lines.filter((line) => line.highlighted).map((line) => line.text);
    assert.ok(
      highlighted.every((text) => !/Shelf|Retention policy/.test(text)),
      `only the quoted sentence is highlighted, not the rest of the passage: ${JSON.stringify(highlighted)}`,
    );
    // Of its line, only the quoted sentence's characters: from "Invoices" (not "Paper goes…") to
    // its full stop (not the editor's right edge).
    const drawn = await highlightAndWords(session.page, 'Invoices', 'year.');
    assert.ok(drawn.first && drawn.last && drawn.pieces.length > 0, `the quote and its highlight are on screen: ${JSON.stringify(drawn)}`);
    const top = Math.min(...drawn.pieces.map((p) => p.top));
    const bottom = Math.max(...drawn.pieces.map((p) => p.top));
    const start = Math.min(...drawn.pieces.filter((p) => p.top === top).map((p) => p.left));
    const end = Math.max(...drawn.pieces.filter((p) => p.top === bottom).map((p) => p.right));
    assert.ok(Math.abs(start - drawn.first.left) <= 3, `the highlight starts at ${start}px, the quote at ${drawn.first.left}px`);
    assert.ok(Math.abs(end - drawn.last.right) <= 3, `the highlight ends at ${end}px, the quote at ${drawn.last.right}px`);
    await session.screenshot('cited passage opened at the quoted sentence');
  });

  it('answers a follow-up from what it refers to, shows "Searched for", and searches again with an edited query', async () => {
    // Continues the grounded conversation above: "And meeting notes?" means "how long are they kept?".
    const followUp = await ask('And meeting notes?');
    const answersBefore = await chat().locator('article.assistant').count();
    await finished(followUp);
    const searched = followUp.locator('.searched-for-input');
    assert.match(await searched.inputValue(), /^And meeting notes\? .*invoices/i, 'the query carries the subject');
    assert.match(await followUp.locator('.markdown-body').innerText(), /Meeting notes are deleted after two years/);
    // The cited source's excerpt is at the quoted sentence, not at the start of its passage (the shelves).
    assert.match(await followUp.locator('.sources .source-snippet').first().innerText(), /^…?Meeting notes are deleted after two years/);
    await session.screenshot('follow-up with Searched for');

    // The edited query is what is searched: one the store has no words for finds nothing.
    await searched.fill('xylophone zeppelin');
    await searched.press('Enter');
    const again = chat().locator('article.assistant').last();
    await again
      .locator('.markdown-body')
      .filter({ hasText: /do not cover this question/ })
      .waitFor({ timeout: 30_000 });
    await finished(again);
    assert.equal(await again.locator('.searched-for-input').inputValue(), 'xylophone zeppelin');
    assert.equal(await chat().locator('article.assistant').count(), answersBefore, 'the answer was replaced, not added');
  });

  it('says the documents do not cover a question the store cannot answer, with no citation', async () => {
    const answer = await ask('How do I configure Kubernetes ingress controllers?');
    await finished(answer);
    assert.match(await answer.locator('.markdown-body').innerText(), /The documents in “demo” do not cover this question/);
    assert.equal(await answer.locator('.markdown-body a.citation').count(), 0);
    assert.equal(await answer.locator('.sources').count(), 0);
    assert.ok((await answer.locator('.next-steps .action-chooseStore').count()) === 1, 'offers to choose a store');
    await session.screenshot('not covered');
    // Search the Documents opens the store's search with the question typed in, its results showing.
    await answer.locator('.next-steps .action-searchDocuments').click();
    const quick = session.page.locator('.quick-input-widget');
    await quick.locator('.quick-input-title', { hasText: 'Search "demo"' }).waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await quick.locator('input.input').inputValue(), 'How do I configure Kubernetes ingress controllers?');
    await quick
      .locator('.monaco-list-row', { hasText: /score \d\.\d\d|No results/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await session.screenshot('not covered: the search of the same words');
    await session.page.keyboard.press('Escape');
    await quick.waitFor({ state: 'hidden', timeout: 30_000 });
  });

  it('grounds a conversation in two stores chosen with "Several stores…" and cites a passage of each, naming its store', async () => {
    // A second store, made through the documents service as another user of it would.
    const form = new FormData();
    form.append('purpose', 'assistants');
    form.append('file', new Blob([TRAVEL], { type: 'text/markdown' }), 'travel.md');
    const uploaded = await fetch(`${backend.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${backend.token}` },
      body: form,
    });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    const file = (await uploaded.json()) as { id: string };
    const store = await backend.request<{ id: string }>('POST', '/v1/vector_stores', { name: 'travel' });
    await backend.request('POST', `/v1/vector_stores/${store.id}/files`, { file_id: file.id });
    await pollUntil(
      () => backend.request<{ status: string }>('GET', `/v1/vector_stores/${store.id}/files/${file.id}`),
      (record) => record.status === 'completed',
      { what: 'travel.md processed in the travel store' },
    );

    await chat().locator('.toolbar .new-chat').click();
    await chat().locator('article.message').first().waitFor({ state: 'detached', timeout: 30_000 });
    await chat().locator('.model-select').selectOption('local-extractive');
    await chat().locator('.store-select').selectOption({ label: 'Several stores…' });
    const picker = session.page.locator('.quick-input-widget');
    for (const name of ['demo', 'travel']) {
      const row = picker.locator('.monaco-list-row', { hasText: name }).first();
      await row.waitFor({ state: 'visible', timeout: 60_000 });
      if ((await row.getAttribute('aria-checked')) !== 'true') await row.click();
      await picker.locator('.monaco-list-row[aria-checked="true"]', { hasText: name }).first().waitFor({ timeout: 15_000 });
    }
    await session.screenshot('two stores chosen');
    await picker.locator('input.input').press('Enter');
    await chat()
      .locator('.store-select option:checked', { hasText: /2 stores: (demo, travel|travel, demo)/ })
      .waitFor({ state: 'attached', timeout: 30_000 });

    const answer = await ask('How long are invoices kept, and what is the daily travel allowance?');
    await finished(answer);
    const text = await answer.locator('.markdown-body').innerText();
    assert.match(text, /Invoices are kept for ten years/);
    assert.match(text, /daily travel allowance is 45 euros/);
    // Each source: its file, then its details (store · heading · score), as the panel lists them.
    const sources = await answer.locator('.sources .source').evaluateAll((items) =>
      items.map((item) => {
        const [store, section] = (item.querySelector('.source-detail')?.textContent ?? '').split(' · ');
        return { file: item.querySelector('.source-title')?.textContent ?? '', store, section };
      }),
    );
    assert.ok(
      sources.some((s) => s.file === 'retention.md' && s.store === 'demo'),
      `a source from retention.md names the demo store: ${JSON.stringify(sources)}`,
    );
    assert.ok(
      sources.some((s) => s.file === 'travel.md' && s.store === 'travel'),
      `a source from travel.md names the travel store: ${JSON.stringify(sources)}`,
    );
    // Its passage starts in "Travel policy": the list names the section of the quoted sentence.
    assert.ok(
      sources.some((s) => s.file === 'travel.md' && s.section === 'Travel policy > Allowances'),
      `the source from travel.md names the section of the quoted allowance: ${JSON.stringify(sources)}`,
    );
    const citedNumbers = await answer.locator('.markdown-body a.citation').allInnerTexts();
    assert.ok(citedNumbers.length >= 2, `both passages are cited: ${JSON.stringify(citedNumbers)}`);
    // The stores' scores are each on their own scale and the sources interleaved by rank: any score shown reads in the list's order.
    const scores = (await answer.locator('.sources .source-score').allInnerTexts()).map((text) => Number(/[\d.]+/.exec(text)?.[0]));
    assert.ok(
      scores.every((score, i) => i === 0 || score <= scores[i - 1]!),
      `the scores shown read in order: ${JSON.stringify(scores)}`,
    );
    await session.screenshot('answer from two stores');
  });

  it('streams a long answer in pieces and stops it mid-stream with Escape; the partial answer stays, marked as stopped', async () => {
    await chat().locator('.model-select').selectOption(SLOW_MODEL);
    await chat().locator('.store-select').selectOption('');
    const frame = await chatWebviewFrame(session.page);
    // Records the answer's text length at every DOM change, to see it arrive in pieces. The
    // upstream paces its words, so how many pieces arrive does not depend on the machine's speed.
    await frame.evaluate(() => {
      const lengths: number[] = [];
      (window as unknown as { answerLengths: number[] }).answerLengths = lengths;
      new MutationObserver(() => {
        const body = document.querySelectorAll('article.assistant .markdown-body');
        const last = body[body.length - 1];
        if (last) lengths.push(last.textContent?.length ?? 0);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const answer = await ask('Write a very long answer.');
    await answer
      .locator('.markdown-body')
      .filter({ hasText: /word30\b/ })
      .waitFor({ timeout: 30_000 });
    const lengths = await frame.evaluate(() => (window as unknown as { answerLengths: number[] }).answerLengths);
    const distinct = new Set(lengths.filter((n) => n > 0));
    assert.ok(distinct.size >= 3, `the answer arrived in pieces (lengths seen: ${[...distinct].join(', ')})`);
    await session.screenshot('long answer streaming');
    await chat().locator('textarea.composer-input').press('Escape');
    await answer.locator('.answer-note.stopped').waitFor({ timeout: 15_000 });
    const partial = await answer.locator('.markdown-body').innerText();
    assert.match(partial, /word30\b/);
    assert.doesNotMatch(partial, new RegExp(`word${SLOW_WORDS - 1}\\b`), 'the whole answer arrived: nothing was stopped');
    assert.ok(await chat().locator('.send:not([hidden])').isVisible(), 'ready for the next question');
    await session.screenshot('long answer stopped');
    // Stopping closes the upstream stream too.
    await pollUntil(() => upstream.streamClosedEarly, Boolean, { timeoutMs: 15_000, what: 'the upstream stream closing early' });
  });

  it('shows an unavailable model inline with Retry, which then answers', async () => {
    await chat().locator('.model-select').selectOption(FLAKY_MODEL);
    const answer = await ask('Are you there?');
    const error = answer.locator('.inline-error');
    await error.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await error.innerText(), /not available/);
    await session.screenshot('model unavailable with retry');
    await retryAnswer(chat(), answer);
    await finished(answer);
    assert.match(await answer.locator('.markdown-body').innerText(), /word4/);
  });

  it('sends the editor selection as context with "Ask DocChat about Selection"', async () => {
    await session.page.locator('.tabs-container .tab', { hasText: 'retention.ts' }).first().click();
    await session.page.locator('.monaco-editor .view-lines').first().click();
    await session.page.keyboard.press('Control+A');
    await session.runCommand(commandTitle('docchat.chat.askAboutSelection'));
    const chip = chat().locator('.pending-context .chip');
    await chip.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match(await chip.innerText(), /retention\.ts, lines 1-4/);
    await chat().locator('.model-select').selectOption('local-extractive');
    const answer = await ask('What does retentionYears return for an invoice?');
    await finished(answer);
    assert.match(await answer.locator('.sources').innerText(), /retention\.ts, lines 1-4/);
    await session.screenshot('selection as context');
  });

  it('inserts a code block of the answer at the cursor of the editor', async () => {
    await session.page.locator('.tabs-container .tab', { hasText: 'retention.ts' }).first().click();
    await session.page.locator('.monaco-editor .view-lines').first().click();
    await session.page.keyboard.press('Control+End');
    await chat().locator('.model-select').selectOption(CODE_MODEL);
    const answer = await ask('Give me a line of code.');
    await finished(answer);
    assert.equal((await answer.locator('.code-block code').innerText()).trim(), 'const insertedByDocChat = 42;');
    // highlight.js is a script of its own, loaded (under the page's CSP) at the first code block.
    await answer.locator('.code-block code .hljs-keyword').first().waitFor({ timeout: 20_000 });
    // A right-aligned column is aligned by a class: an inline style would be a CSP error in the
    // console, which fails the test.
    const years = answer.locator('.markdown-body td.md-align-right');
    assert.equal((await years.innerText()).trim(), '10');
    assert.equal(await years.evaluate((td) => getComputedStyle(td).textAlign), 'right');
    await answer.locator('.code-block [data-action="insert"]').click();
    const editor = session.page.locator('.editor-group-container .monaco-editor .view-lines').first();
    await editor.filter({ hasText: 'insertedByDocChat' }).waitFor({ timeout: 20_000 });
    await session.screenshot('code inserted at the cursor');
    await session.page.keyboard.press('Control+Z');
  });

  it('adds a search result from the search quick pick to the chat as context', async () => {
    await session.runCommand(commandTitle('docchat.search'));
    // The store picker (if there is more than one store) gives way to the search box: type only then.
    const quick = await openStoreSearch(session.page, 'demo');
    await quick.locator('input.input').fill('meeting notes deleted');
    const result = quick.locator('.monaco-list-row', { hasText: 'retention.md' }).first();
    await result.waitFor({ state: 'visible', timeout: 30_000 });
    await result.hover();
    await result.locator('.action-label[aria-label="Add to Chat"]').click();
    await session.page.keyboard.press('Escape');
    const chip = chat().locator('.pending-context .chip', { hasText: 'retention.md' });
    await chip.waitFor({ state: 'visible', timeout: 20_000 });
    await session.screenshot('search result added as context');
    await chat().locator('.model-select').selectOption('local-extractive');
    await chat().locator('.store-select').selectOption('');
    const answer = await ask('When are meeting notes deleted?');
    await finished(answer);
    assert.match(await answer.locator('.markdown-body').innerText(), /Meeting notes are deleted after two years/);
    assert.match(await answer.locator('.sources').innerText(), /\[1\].*retention\.md/s);
    assert.equal(await chat().locator('.pending-context .chip').count(), 0, 'the context went with the question');
  });

  it('finds the conversation again after reloading the window', async () => {
    const before = await chat().locator('article.message').count();
    await session.runCommand('Developer: Reload Window');
    await waitForWorkbench(session.page);
    await chatWebviewFrame(session.page, 90_000);
    await chat()
      .locator('article.message')
      .nth(before - 1)
      .waitFor({ state: 'attached', timeout: 60_000 });
    assert.equal(await chat().locator('article.message').count(), before);
    const conversations = await chat().locator('.conversation-select option').allInnerTexts();
    assert.ok(conversations.includes(QUESTION), `conversation list: ${JSON.stringify(conversations)}`);
    await chat().locator('.conversation-select').selectOption({ label: QUESTION });
    await chat().locator('article.assistant a.citation').first().waitFor({ state: 'visible', timeout: 20_000 });
    assert.match(await chat().locator('article.assistant').first().innerText(), /Invoices are kept for ten years/);
    await session.screenshot('conversation after reload');
  });
});
