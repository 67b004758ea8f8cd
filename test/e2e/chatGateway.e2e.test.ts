import * as assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import * as path from 'node:path';
import { setTimeout as pace } from 'node:timers/promises';
import type { Locator } from 'playwright-core';
import {
  answerDone,
  askInChat,
  captureFailures,
  chatPanel,
  chatWebviewFrame,
  commandTitle,
  launchVSCode,
  pollUntil,
  waitForWorkbench,
  type VSCodeSession,
} from '../support/harness';
import { chatChunk, type RecordedRequest, ScriptServer, sendJson, sseBody } from '../support/servers/scriptServer';

// The chat panel in a real VS Code against a scripted gateway that records every request: a legacy
// model is asked through the deprecated `/v1/inference/{model}` endpoint, and an answer that is
// streaming when the window reloads comes back marked as interrupted, with what had arrived, and
// Regenerate then answers it in full.

const API_KEY = 'chat-gateway-e2e-key';
const CHAT_MODEL = 'alpha-5-mini';
const LEGACY_MODEL = 'o3-mini';
const LEGACY_QUESTION = 'Which retention rules apply to invoices?';
const LEGACY_ANSWER = 'Invoices are kept for ten years, says the legacy model.';
const LONG_QUESTION = 'Write a very long answer about retention.';
const WORDS = 400;
/** The first answer to the long question holds after this word until the window closes its stream. */
const SLOW_HOLD_AFTER = 40;
const word = (i: number) => (i % 12 === 11 ? `word${i}.\n\n` : `word${i} `);
const THINKING_QUESTION = 'Think first: how long are invoices kept?';
const REASONING = 'The user asks about invoices. The policy says ten years.';
const THOUGHT_ANSWER = 'Invoices are kept for ten years.';
/** The reasoning model holds its answer until the test has seen "Thinking…": no race with a fast machine. */
let releaseThought: () => void = () => undefined;
const thoughtReleased = () => new Promise<void>((resolve) => (releaseThought = resolve));

/** The gateway: its model list, a legacy model on the inference endpoint, and chat completions that stream slowly the first time. */
async function startGateway(): Promise<ScriptServer> {
  const server = await ScriptServer.start();
  server.on('GET', '/v1/completions/models', (_req, res) =>
    sendJson(res, 200, { object: 'list', data: [{ id: CHAT_MODEL, object: 'model', created: 1, owned_by: 'e2e' }] }),
  );
  server.on('POST', `/v1/inference/${LEGACY_MODEL}`, (_req, res) => {
    // The inference endpoint's own shape: `response` pieces, then the usage.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const [first, rest] = [LEGACY_ANSWER.slice(0, 9), LEGACY_ANSWER.slice(9)];
    res.end(
      sseBody([
        { model: LEGACY_MODEL, response: first },
        { model: LEGACY_MODEL, response: rest },
        { model: LEGACY_MODEL, response: '', usage: { prompt_tokens: 12, completion_tokens: 11, total_tokens: 23 } },
      ]),
    );
  });
  let longAnswers = 0;
  server.on('POST', '/v1/chat/completions', async (req, res: ServerResponse) => {
    res.on('error', () => undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    // The first answer to the long question is paced and then held open, so the window reloads
    // while it streams; every other answer comes at once.
    const messages = (req.json?.messages ?? []) as Array<{ content?: string }>;
    if (messages[messages.length - 1]?.content === THINKING_QUESTION) {
      // A reasoning model (llama.cpp's, vLLM's shape): its reasoning first, then, once released, its answer.
      const released = thoughtReleased();
      res.write(`data: ${JSON.stringify({ ...chatChunk('', { role: 'assistant' }), model: CHAT_MODEL })}\n\n`);
      for (const piece of REASONING.split(/(?<= )/)) {
        res.write(
          `data: ${JSON.stringify({ id: 'think', model: CHAT_MODEL, choices: [{ index: 0, delta: { reasoning_content: piece }, finish_reason: null }] })}\n\n`,
        );
      }
      await released;
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify({ ...chatChunk(THOUGHT_ANSWER), model: CHAT_MODEL })}\n\n`);
      res.write(`data: ${JSON.stringify(chatChunk(undefined, { finish_reason: 'stop' }))}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    const slow = messages[messages.length - 1]?.content === LONG_QUESTION && longAnswers++ === 0;
    for (let i = 0; i < WORDS; i++) {
      if (res.destroyed || res.writableEnded) return;
      res.write(`data: ${JSON.stringify({ ...chatChunk(word(i)), model: CHAT_MODEL })}\n\n`);
      if (slow && i === SLOW_HOLD_AFTER) {
        // Nothing more until the client closes the stream: the reload always comes mid-answer,
        // however slow the machine is.
        await new Promise((resolve) => res.once('close', resolve));
        return;
      }
      if (slow) await pace(50);
    }
    res.write(`data: ${JSON.stringify(chatChunk(undefined, { finish_reason: 'stop' }))}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  return server;
}

/** A generation request the gateway saw. */
const isGeneration = (r: RecordedRequest) => r.method === 'POST' && /^\/v1\/(chat\/completions|completions|inference\/)/.test(r.path);

interface StoredAnswer {
  role: string;
  status?: string;
  content: string;
}

/**
 * The chat conversations as stored right now (the file the windows on the workspace share, under
 * DocChat's global storage): the content of the answers still streaming.
 */
async function storedStreamingAnswers(session: VSCodeSession): Promise<string[]> {
  const root = path.join(session.userDataDir, 'User', 'globalStorage', 'docchat.docchat', 'conversations');
  const folders = await readdir(root).catch(() => [] as string[]);
  const contents: string[] = [];
  for (const folder of folders) {
    const text = await readFile(path.join(root, folder, 'conversations.json'), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const state = JSON.parse(text) as Record<string, { conversations?: Array<{ messages: StoredAnswer[] }> } | undefined>;
    const conversations = state['docchat.chat.conversations']?.conversations ?? [];
    contents.push(
      ...conversations.flatMap((c) => c.messages.filter((m) => m.role === 'assistant' && m.status === 'streaming').map((m) => m.content)),
    );
  }
  return contents;
}

describe('Chat panel against a scripted gateway (e2e)', function () {
  let session: VSCodeSession;
  let gateway: ScriptServer;

  const chat = () => chatPanel(session.page);
  const ask = (question: string) => askInChat(chat(), question);
  const finished = (answer: Locator) => answerDone(chat(), answer);

  before(async function () {
    gateway = await startGateway();
    session = await launchVSCode({
      name: 'chat gateway',
      settings: { 'docchat.documents.url': gateway.url, 'docchat.gateway.url': gateway.url },
    });
    await session.openView();
    await session.closeQuickInput().catch(() => undefined);
    await session.enterSecret('docchat.setGatewayApiKey', API_KEY);
    await session.waitForOutput(/docchat\.gatewayApiKey updated/);
    await session.runCommand(commandTitle('docchat.chat.open'));
    await chatWebviewFrame(session.page);
    // Connected once the gateway's models are listed (before the key the panel says "Not connected").
    await chat().locator(`.model-select option[value="${CHAT_MODEL}"]`).waitFor({ state: 'attached', timeout: 60_000 });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    await gateway?.close();
  });

  it('asks a legacy model through /v1/inference and shows its answer', async () => {
    await chat().locator('.model-select').selectOption(LEGACY_MODEL);
    const seen = gateway.requests.length;
    const answer = await ask(LEGACY_QUESTION);
    await finished(answer);
    assert.equal((await answer.locator('.markdown-body').innerText()).trim(), LEGACY_ANSWER);
    assert.match(await answer.locator('.usage').innerText(), /23/);
    await session.screenshot('legacy model answered');

    const generations = gateway.requests.slice(seen).filter(isGeneration);
    assert.deepEqual(
      generations.map((r) => `${r.method} ${r.path}`),
      [`POST /v1/inference/${LEGACY_MODEL}`],
      'one request to the inference endpoint and none to chat completions',
    );
    const body = generations[0]!.json;
    assert.equal(body.prompt, LEGACY_QUESTION, 'the prompt is the question (a new chat has no history)');
    assert.equal(typeof body.system_prompt, 'string');
    assert.equal(body.project_code, 'NA');
    assert.equal(body.stream, true);
    assert.equal(body.messages, undefined, 'no chat messages on the inference endpoint');
  });

  it('says "Thinking…" while a reasoning model reasons, then shows its answer without the reasoning', async () => {
    await chat().locator('.model-select').selectOption(CHAT_MODEL);
    const answer = await ask(THINKING_QUESTION);
    await answer.locator('.phase').filter({ hasText: 'Thinking…' }).waitFor({ timeout: 60_000 });
    await session.screenshot('reasoning model thinking');
    releaseThought();
    await finished(answer);
    assert.equal((await answer.locator('.markdown-body').innerText()).trim(), THOUGHT_ANSWER);
    assert.doesNotMatch(await answer.innerText(), /The user asks|Thinking…/);
  });

  it('shows an answer that was streaming when the window reloaded as interrupted, and Regenerate completes it', async () => {
    await chat().locator('.toolbar .new-chat').click();
    await chat().locator('article.message').first().waitFor({ state: 'detached', timeout: 30_000 });
    await chat().locator('.model-select').selectOption(CHAT_MODEL);
    const answer = await ask(LONG_QUESTION);
    // The first words are painted, and the window's storage holds some of them.
    await answer
      .locator('.markdown-body')
      .filter({ hasText: /word0\b/ })
      .waitFor({ timeout: 30_000 });
    const stored = await pollUntil(
      () => storedStreamingAnswers(session),
      (contents) => contents.some((c) => c.length > 0),
      { what: 'the streaming answer saved in the workspace storage', timeoutMs: 60_000 },
    );
    const partial = stored.find((c) => c.length > 0)!;
    await session.screenshot('answer streaming before the reload');

    await session.runCommand('Developer: Reload Window');
    await waitForWorkbench(session.page);
    await chatWebviewFrame(session.page, 90_000);
    const restored = chat().locator('article.assistant').last();
    const note = restored.locator('.answer-note.stopped');
    await note.waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal((await note.innerText()).trim(), 'Interrupted (the window was reloaded)');
    assert.equal(await restored.getAttribute('data-status'), 'stopped');
    const text = (await restored.locator('.markdown-body').innerText()).replace(/\s+/g, ' ').trim();
    assert.ok(text.startsWith(partial.replace(/\s+/g, ' ').trim()), `the restored answer keeps what had arrived: ${text.slice(0, 200)}`);
    assert.doesNotMatch(text, new RegExp(`word${WORDS - 1}\\b`), 'the whole answer arrived before the reload');
    assert.equal(
      (await chat().locator('article.user .message-text').last().innerText()).trim(),
      LONG_QUESTION,
      'the question is still there, above the interrupted answer',
    );
    await session.screenshot('interrupted answer after the reload');

    const asked = gateway.requests.filter(isGeneration).length;
    await restored.locator('button.regenerate').click();
    const regenerated = chat().locator('article.assistant').last();
    await finished(regenerated);
    const complete = await regenerated.locator('.markdown-body').innerText();
    assert.match(complete, new RegExp(`word${WORDS - 1}\\b`), 'the regenerated answer is complete');
    assert.equal(await regenerated.locator('.answer-note.stopped').count(), 0);
    assert.equal(await chat().locator('article.assistant').count(), 1, 'the new answer replaced the interrupted one');
    const requests = gateway.requests.filter(isGeneration);
    assert.equal(requests.length, asked + 1, 'Regenerate asked the gateway once more');
    const messages = requests[requests.length - 1]!.json.messages as Array<{ role: string; content: string }>;
    assert.deepEqual(messages[messages.length - 1], { role: 'user', content: LONG_QUESTION });
    await session.screenshot('regenerated after the reload');
  });
});
