import * as assert from 'node:assert/strict';
import path from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import { isProcessAlive, readDiscovery, type DiscoveryInfo } from '../../src/common/discoveryFile';
import {
  answerDone,
  askInChat,
  captureFailures,
  chatWebviewFrame,
  commandTitle,
  launchVSCode,
  pollUntil,
  seedDemoStore,
  localModeStorage,
  type VSCodeSession,
  type VSCodeWindow,
} from '../support/harness';

// Local mode's one backend process per profile, used the ordinary way: two windows on the same
// code-server, each in a browser context of its own (so each has its own secret storage, as two
// profiles or a remote and a local window have; the global storage on the server is shared).
// Both list the stores and answer; the first closes and the second goes on; the backend is killed
// and the next question is answered without a reload; once every window is gone, the backend
// exits after its (shortened) idle time.

const QUESTION = 'What does npm test run?';
const IDLE_EXIT_MS = 3_000;

describe('Local mode: one backend process for every window (e2e)', function () {
  let session: VSCodeSession | undefined;
  let second: (VSCodeWindow & { close(): Promise<void> }) | undefined;
  const pidsSeen = new Set<number>();

  captureFailures(() => session);

  const discoveryFile = () => path.join(localModeStorage(session!.userDataDir), 'backend.json');
  async function discovery(): Promise<DiscoveryInfo> {
    const info = await pollUntil(
      () => readDiscovery(discoveryFile()),
      (i) => i !== undefined && isProcessAlive(i.pid),
      {
        timeoutMs: 120_000,
        intervalMs: 250,
        what: 'a running backend named in the discovery file',
      },
    );
    pidsSeen.add(info!.pid);
    return info!;
  }

  async function listsTheDemoStore(window: VSCodeWindow): Promise<void> {
    await window.openView();
    await window
      .viewPane('Vector Stores')
      .locator('.monaco-list-row', { hasText: 'demo' })
      .first()
      .waitFor({ state: 'visible', timeout: 120_000 });
  }

  async function openChat(window: VSCodeWindow): Promise<Frame> {
    await window.runCommand(commandTitle('docchat.chat.open'));
    const chat = await chatWebviewFrame(window.page, 120_000);
    // The only store there is grounds a new chat.
    await chat.locator('.store-select option:checked', { hasText: 'demo' }).waitFor({ state: 'attached', timeout: 60_000 });
    return chat;
  }

  /** Waits for the answer's end; a grounded answer from the demo store names `npm test` and cites README.md. */
  async function answered(chat: Frame, answer: Locator): Promise<void> {
    await answerDone(chat, answer, 120_000);
    const text = await answer.locator('.markdown-body').innerText();
    assert.match(text, /npm test/, text);
    assert.match(await answer.locator('.sources .source').first().innerText(), /README\.md/);
  }

  before(async function () {
    this.timeout(300_000);
    session = await launchVSCode({
      name: 'local backend windows',
      env: { DOCCHAT_LOCAL_IDLE_EXIT_MS: String(IDLE_EXIT_MS) },
      // The profile's data folder holds the demo store, as `npm start` seeds it.
      prepare: ({ userDataDir }) => seedDemoStore(userDataDir),
    });
  });

  after(async () => {
    await second?.close().catch(() => undefined);
    await session?.close();
    session = undefined;
  });

  it('both windows list the stores and get a streamed answer from the one backend', async function () {
    this.timeout(600_000);
    await listsTheDemoStore(session!);
    const first = await discovery();
    second = await session!.openWindow('second window');
    await listsTheDemoStore(second);
    assert.equal((await discovery()).pid, first.pid, 'the second window uses the running backend');

    const firstChat = await openChat(session!);
    await answered(firstChat, await askInChat(firstChat, QUESTION));
    await session!.screenshot('first window answered');
    const chat = await openChat(second);
    await answered(chat, await askInChat(chat, QUESTION));
    await second.screenshot('answered');
    assert.equal((await discovery()).pid, first.pid, 'still one backend');
  });

  it('closing the first window leaves the second answering', async function () {
    this.timeout(600_000);
    const before = await discovery();
    await session!.page.context().close();
    // The backend is no child of the first window's extension host: it serves on.
    await second!.runCommand(commandTitle('docchat.refreshStores'));
    await listsTheDemoStore(second!);
    const chat = await chatWebviewFrame(second!.page);
    await answered(chat, await askInChat(chat, QUESTION));
    assert.equal((await discovery()).pid, before.pid, 'the same backend serves on');
    await second!.screenshot('answers after the first window closed');
  });

  it('a killed backend is started again and the next question is answered without a reload', async function () {
    this.timeout(600_000);
    const killed = await discovery();
    process.kill(killed.pid, 'SIGKILL');
    await pollUntil(
      () => isProcessAlive(killed.pid),
      (alive) => !alive,
      { timeoutMs: 30_000, intervalMs: 50, what: 'the killed backend gone' },
    );

    // The window finds the backend gone (its lease renewal fails) and starts it again; once it
    // says so, the next question is answered, with no error and no Retry.
    await session!.waitForOutput(/The local backend stopped and was started again/, 120_000);
    const chat = await chatWebviewFrame(second!.page);
    const answer = await askInChat(chat, QUESTION);
    await answered(chat, answer);
    assert.equal(await answer.locator('.inline-error').count(), 0, 'the question was answered without an error');
    const restarted = await discovery();
    assert.notEqual(restarted.pid, killed.pid, 'a new backend process');
    assert.equal(restarted.url, killed.url, 'at the same address');
    assert.equal(
      session!.outputChannel().match(/The local backend stopped and was started again/g)?.length,
      1,
      'the restart is said once in the output',
    );
    await second!.screenshot('answered after the backend was killed');
  });

  it('once every window is closed and the idle time passed, no backend process is left', async function () {
    this.timeout(600_000);
    const last = await discovery();
    await second!.close();
    second = undefined;
    // Closing the last window ends its extension host, which lets go of its lease.
    await pollUntil(
      () => [...pidsSeen].filter(isProcessAlive),
      (alive) => alive.length === 0,
      {
        timeoutMs: 240_000,
        intervalMs: 250,
        what: `backend processes ${[...pidsSeen].join(', ')} exiting after the last window (last ${last.pid})`,
      },
    );
    assert.equal(await readDiscovery(discoveryFile()), undefined, 'the backend removed its discovery file');
  });
});
