import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { readSettings } from '../../../../src/services/config';
import { RateLimitMonitor } from '../../../../src/services/rateLimits';
import { EXTENSION_ID, eventually } from './fixtures';

interface DocChatApi {
  connectionState(): { kind: string; url?: string };
  whenReady(): Promise<void>;
}

describe('DocChat documents commands and Local mode (extension host)', () => {
  let api: DocChatApi;

  before(async () => {
    const extension = vscode.extensions.getExtension<DocChatApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
  });

  it('starts the embedded backend on 127.0.0.1 when no documents URL is set (Local mode)', async () => {
    await api.whenReady();
    const state = await eventually(() => (api.connectionState().kind === 'local' ? api.connectionState() : undefined), 'Local mode');
    assert.match(state.url ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${state.url}/v1/vector_stores`);
    assert.equal(response.status, 401, 'the local backend requires its generated token');
  });

  it('registers the documents commands', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const id of [
      'docchat.setDocumentsToken',
      'docchat.setGatewayApiKey',
      'docchat.signOut',
      'docchat.refreshStores',
      'docchat.refreshNode',
      'docchat.loadMore',
      'docchat.createStore',
      'docchat.copyId',
      'docchat.revealInTree',
      'docchat.attachCurrentFile',
      'docchat.attachFiles',
      'docchat.setFileMetadata',
      'docchat.setStoreFileMetadata',
      'docchat.search',
      'docchat.searchInFiles',
    ]) {
      assert.ok(registered.has(id), `${id} is not registered`);
    }
  });

  it('copies the IDs of the selected tree nodes', async function () {
    // A browser-hosted VS Code reaches the clipboard only with the page's permission; without it the
    // calls never settle, and this test says so (skipped) instead of passing. The E2E suite grants
    // the permission and checks Copy ID from the tree's context menu.
    const settle = <T>(p: Thenable<T>) =>
      Promise.race([Promise.resolve(p).then((v) => ({ v })), new Promise<undefined>((r) => setTimeout(() => r(undefined), 5_000))]);
    if (!(await settle(vscode.env.clipboard.writeText(''))) || (await settle(vscode.env.clipboard.readText())) === undefined) this.skip();
    const store = { kind: 'store', store: { id: 'vs_copy_me', name: 'x' } };
    const file = { kind: 'storeFile', fileId: 'file-copy-me' };
    await vscode.commands.executeCommand('docchat.copyId', store, [store, file]);
    assert.equal(await vscode.env.clipboard.readText(), 'vs_copy_me\nfile-copy-me');
  });

  it('never takes the documents URL from workspace settings (machine scope)', async () => {
    const section = vscode.workspace.getConfiguration('docchat');
    assert.equal(section.inspect('documents.url')?.defaultValue, '');
    await assert.rejects(
      Promise.resolve(section.update('documents.url', 'http://attacker.example', vscode.ConfigurationTarget.Workspace)),
      'VS Code refuses to write a machine-scoped setting into the workspace',
    );
    // A workspace that carries the value in its settings file anyway: VS Code ignores it. A
    // window-scoped setting written beside it shows when the file has been read.
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the extension-host suite runs with a workspace folder');
    const file = vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
    const before = await Promise.resolve(vscode.workspace.fs.readFile(file)).catch(() => undefined);
    const read = new Promise<void>((resolve) => {
      const listener = vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('docchat.search.maxResults')) {
          listener.dispose();
          resolve();
        }
      });
    });
    const hostile = { 'docchat.documents.url': 'http://attacker.example', 'docchat.search.maxResults': 7 };
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(JSON.stringify(hostile)));
    try {
      await read;
      assert.equal(vscode.workspace.getConfiguration('docchat').get('search.maxResults'), 7, 'the workspace file was read');
      assert.equal(readSettings().documentsUrl, '', 'a workspace value must not redirect the token');
      assert.equal(api.connectionState().kind, 'local');
    } finally {
      if (before) await vscode.workspace.fs.writeFile(file, before);
      else await vscode.workspace.fs.delete(file);
    }
  });
});

describe('rate-limit monitor (extension host)', () => {
  it('reports the longest running wait per operation, with the seconds left, and fires a change', async () => {
    // A clock the test moves: the seconds left never depend on how fast the test runs.
    let now = 1_700_000_000_000;
    const monitor = new RateLimitMonitor(() => now);
    const seen: string[] = [];
    const listener = monitor.onDidChange((wait) => seen.push(wait.operation));
    try {
      assert.equal(monitor.current(), undefined);
      monitor.report('search', 0);
      assert.deepEqual(seen, [], 'a zero wait is not reported');
      monitor.report('search', 12_000);
      monitor.report('createVectorStore', 3_000);
      assert.equal(monitor.current()?.operation, 'search');
      assert.equal(monitor.secondsLeft('search'), 12);
      now += 3_500;
      assert.equal(monitor.secondsLeft('createVectorStore'), 0, 'a finished wait is over');
      assert.equal(monitor.secondsLeft('search'), 9);
      now += 9_500;
      assert.equal(monitor.current(), undefined);
      assert.deepEqual(seen, ['search', 'createVectorStore']);
    } finally {
      listener.dispose();
      monitor.dispose();
    }
  });
});
