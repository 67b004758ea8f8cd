import * as assert from 'node:assert/strict';
import net from 'node:net';
import { launchVSCode, newErrors, startBackendProcess, treeItemLabels, type BackendProcess, type VSCodeSession } from '../support/harness';

// The first thing a user sees: the DocChat view in a real VS Code, signed out and then with items
// from a real backend.

const STORES_VIEW = 'Vector Stores';

/** A 127.0.0.1 port nobody listens on: a "remote" service that is configured but never reached. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function assertTreeRegistered(session: VSCodeSession): Promise<void> {
  const text = await session.viewPane(STORES_VIEW).innerText();
  assert.doesNotMatch(text, /no data provider registered/i, 'the stores tree was never registered (did DocChat activate?)');
}

describe('DocChat view (e2e)', function () {
  let session: VSCodeSession | undefined;
  let backend: BackendProcess | undefined;

  afterEach(async function () {
    const unexpected = session ? newErrors(session) : [];
    if (session && this.currentTest?.state === 'failed') {
      await session.screenshot('failure').catch(() => undefined);
      console.log(`DocChat output channel:\n${session.outputChannel()}`);
      console.log(`Extension host errors:\n${session.extensionErrors().join('\n')}`);
    }
    await session?.close();
    await backend?.stop();
    session = undefined;
    backend = undefined;
    if (this.currentTest?.state === 'passed' && unexpected.length > 0) {
      throw new Error(`"${this.currentTest.title}" left errors behind:\n${unexpected.join('\n')}`);
    }
  });

  it('shows the welcome view when signed out', async function () {
    session = await launchVSCode({
      name: this.test!.fullTitle(),
      settings: { 'docchat.documents.url': `http://127.0.0.1:${await closedPort()}` },
    });
    await session.screenshot('workbench');
    await session.openView();
    const pane = session.viewPane(STORES_VIEW);
    const setToken = pane.locator('.welcome-view-content .monaco-button', { hasText: /token/i });
    await setToken.first().waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('welcome view');

    assert.equal(await pane.locator('.monaco-list-row').count(), 0, 'signed out, yet the tree shows items');
    await assertTreeRegistered(session);
  });

  it('lists the vector stores of a real backend once a token is set', async function () {
    backend = await startBackendProcess({ token: 'e2e-token' });
    const store = await backend.request<{ id: string; name: string }>('POST', '/v1/vector_stores', { name: 'e2e-handbook' });
    session = await launchVSCode({
      name: this.test!.fullTitle(),
      settings: { 'docchat.documents.url': backend.url },
    });
    await session.openView();
    const pane = session.viewPane(STORES_VIEW);
    const setToken = pane.locator('.welcome-view-content .monaco-button', { hasText: /token/i });
    await setToken.first().waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('signed out');

    await setToken.first().click();
    await session.answerQuickInput(backend.token);
    const row = pane.locator('.monaco-list-row', { hasText: store.name });
    await row.first().waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('stores listed');

    assert.ok((await treeItemLabels(pane)).includes(store.name), `the tree does not list ${store.name}`);
    await assertTreeRegistered(session);
  });
});
