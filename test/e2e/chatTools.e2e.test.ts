import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  askInChat,
  chatPanel,
  chatWebviewFrame,
  commandTitle,
  captureFailures,
  launchVSCode,
  startBackendProcess,
  type BackendProcess,
  type VSCodeSession,
} from '../support/harness';
import { startResearchServer, type ResearchServer } from '../support/servers/researchServer';

// The chat panel's gateway tools in a real VS Code. First the gateway is a test server that
// implements the research endpoints (each status poll advances a task one step): `/research`
// shows its progress, then its answer with sources; a task that never ends is cancelled with
// Escape. Then the gateway setting is switched to the embedded backend (its command line, no
// upstream), whose 501 for web search and research shows as a clear message.

const API_KEY = 'chat-tools-e2e-key';

describe('Chat panel gateway tools (e2e)', function () {
  let session: VSCodeSession;
  let backend: BackendProcess;
  let research: ResearchServer;

  const chat = () => chatPanel(session.page);
  const send = (text: string) => askInChat(chat(), text);

  /** Points `docchat.gateway.url` (a machine setting, read from the remote machine's settings) elsewhere. */
  function setGatewayUrl(url: string): void {
    const file = path.join(session.userDataDir, 'Machine/settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...settings, 'docchat.gateway.url': url }, null, 2));
  }

  before(async function () {
    research = await startResearchServer({ apiKey: API_KEY });
    backend = await startBackendProcess({ token: 'chat-tools-e2e-token', apiKey: API_KEY, args: ['--no-rate-limits'] });
    session = await launchVSCode({
      name: 'chat tools',
      settings: { 'docchat.documents.url': backend.url, 'docchat.gateway.url': research.url },
    });
    await session.openView();
    await session.closeQuickInput().catch(() => undefined);
    await session.enterSecret('docchat.setGatewayApiKey', API_KEY);
    try {
      await session.waitForOutput(/docchat\.gatewayApiKey updated/);
    } finally {
      await session.screenshot('gateway API key set');
    }
    await session.runCommand(commandTitle('docchat.chat.open'));
    await chatWebviewFrame(session.page);
    // The chat is connected once it has asked the gateway (the research server) for its models:
    // the server has no model list, which the panel reports (before the key it says "Not connected").
    await chat().locator('.notices .notice', { hasText: 'Could not list the models' }).waitFor({ state: 'attached', timeout: 60_000 });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    await backend?.stop();
    await research?.close();
  });

  it('suggests the slash commands in the composer', async () => {
    const input = chat().locator('textarea.composer-input');
    assert.match((await input.getAttribute('placeholder')) ?? '', /\/web, \/crawl, \/research/);
    await input.click();
    await input.fill('/');
    const suggestions = chat().locator('.slash-commands .slash-usage');
    await suggestions.first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.deepEqual(await suggestions.allInnerTexts(), ['/web <query>', '/crawl <url…>', '/research <topic>']);
    await session.screenshot('slash command suggestions');
    await input.press('Escape');
    await input.fill('');
  });

  it('/research shows its progress while polling, then the result with its sources', async () => {
    const answer = await send('/research solar power');
    assert.equal(await answer.locator('.tool-badge').innerText(), 'Web research');
    // Each poll advances the task one step; the answer shows the steps as they come.
    await answer.locator('.phase', { hasText: 'Researching… 50% — Reading 4 sources' }).waitFor({ timeout: 60_000 });
    assert.equal(await answer.locator('progress.tool-progress').evaluate((p) => (p as HTMLProgressElement).value), 0.5);
    await session.screenshot('research in progress');
    await answer.and(chat().locator('article[data-status="done"]')).waitFor({ timeout: 60_000 });

    assert.match(await answer.locator('.markdown-body h2').innerText(), /Findings on solar power/);
    assert.equal(await answer.locator('.markdown-body a.citation').count(), 1, '[1] links to the first source');
    const sources = answer.locator('.sources .source');
    assert.equal(await sources.count(), 2);
    assert.match(await sources.nth(0).innerText(), /Solar power \[overview\].*https:\/\/example\.com\/solar/s);
    assert.equal(await sources.nth(1).locator('[data-source]').count(), 0, 'a javascript: source is not clickable');
    assert.ok(await answer.locator('progress.tool-progress').isHidden(), 'the progress bar goes with the answer');
    await session.screenshot('research answer with sources');
  });

  it('Escape cancels a running /research: the poll in flight is abandoned and the answer is marked as stopped', async () => {
    const answer = await send('/research run forever');
    await answer.locator('.phase', { hasText: 'Searching the web' }).waitFor({ timeout: 60_000 });
    const task = [...research.tasks.values()].find((t) => t.query === 'run forever');
    assert.ok(task, 'the research task was started on the server');
    await session.screenshot('research running');
    const poll = research.holdNextPoll();
    await poll.arrived;
    const polls = task.polls;
    await chat().locator('textarea.composer-input').press('Escape');
    await poll.abandoned;
    await answer.locator('.answer-note.stopped').waitFor({ timeout: 15_000 });
    assert.match(await answer.locator('.markdown-body').innerText(), new RegExp(`Stopped following research task ${task.id}`));
    assert.ok(await chat().locator('.send:not([hidden])').isVisible(), 'ready for the next message');
    await session.screenshot('research cancelled');
    assert.equal(task.polls, polls, 'no status poll was answered after cancelling');
  });

  it("shows the embedded backend's 501 for web search and research as a clear message", async () => {
    setGatewayUrl(backend.url);
    // The embedded backend lists its own model: the chat is talking to it now.
    await chat().locator('.model-select option[value="local-extractive"]').waitFor({ state: 'attached', timeout: 60_000 });
    for (const [command, what] of [
      ['/web solar power', 'Web search'],
      ['/research solar power', 'Web research'],
    ] as const) {
      const answer = await send(command);
      const error = answer.locator('.inline-error');
      await error.waitFor({ state: 'visible', timeout: 30_000 });
      const text = await error.innerText();
      assert.match(text, new RegExp(`${what} needs your company's gateway; DocChat's Local mode has none\\.`));
      assert.doesNotMatch(text, /\/tools\//, 'no API path');
      assert.equal(await error.locator('.action-openGatewaySettings').count(), 1, 'Open Settings leads to the gateway setting');
      assert.equal(await error.locator('.action-retry').count(), 0, 'no Retry for a tool the gateway lacks');
      await session.screenshot(`${what} not available`);
    }
  });
});
