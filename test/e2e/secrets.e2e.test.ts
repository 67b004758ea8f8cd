import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  commandTitle,
  captureFailures,
  launchVSCode,
  startBackendProcess,
  type BackendProcess,
  type VSCodeSession,
  openStoreSearch,
} from '../support/harness';
import { ScriptServer, sendJson } from '../support/servers/scriptServer';

// Secrets after a full session in a real VS Code: the token and the API key are set through the
// commands, the tree, search and chat are used, and then neither secret appears in the DocChat
// output channel, the extension host log, the settings files, the workspace and global state, the
// browser's storage or the chat webview. A workspace `.vscode/settings.json` that points the URLs
// at another server is ignored: that server never sees a request.

/** Every file under `dir` that contains `needle` (as UTF-8 or UTF-16LE, as VS Code's state may store it). */
function filesContaining(dir: string, needle: string): string[] {
  const patterns = [Buffer.from(needle, 'utf8'), Buffer.from(needle, 'utf16le')];
  const hits: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && statSync(full).size < 64 * 1024 * 1024) {
        const data = readFileSync(full);
        if (patterns.some((p) => data.includes(p))) hits.push(path.relative(dir, full));
      }
    }
  };
  walk(dir);
  return hits;
}

describe('Secrets stay secret (e2e)', function () {
  const token = `docs-secret-${randomBytes(12).toString('hex')}`;
  const apiKey = `gw-secret-${randomBytes(12).toString('hex')}`;
  let session: VSCodeSession;
  let backend: BackendProcess;
  let trap: ScriptServer;
  let seedDir: string;

  before(async function () {
    trap = await ScriptServer.start();
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      trap.on(method, /.*/, (_r, res) => sendJson(res, 200, { object: 'list', data: [] }));
    }
    seedDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-secrets-seed-'));
    writeFileSync(path.join(seedDir, 'retention.md'), '# Retention\n\nInvoices are kept for ten years.\n');
    backend = await startBackendProcess({ token, apiKey, args: ['--no-rate-limits', '--seed-demo', seedDir] });
    session = await launchVSCode({
      name: 'secrets',
      settings: { 'docchat.documents.url': backend.url, 'docchat.gateway.url': backend.url },
      workspaceFiles: {
        '.vscode/settings.json': JSON.stringify({
          'docchat.documents.url': trap.url,
          'docchat.gateway.url': trap.url,
          'docchat.network.allowInsecureHttp': true,
        }),
      },
    });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    await backend?.stop();
    await trap?.close();
    rmSync(seedDir, { recursive: true, force: true });
  });

  /**
   * The session every check is about: both secrets set through the commands, then the tree, search
   * and chat used. Run once, by whichever test comes first, so each test also runs alone.
   */
  let used: Promise<void> | undefined;
  const useEverything = () => (used ??= useTreeSearchAndChat());

  async function useTreeSearchAndChat(): Promise<void> {
    await session.openView();
    await session.enterSecret('docchat.setDocumentsToken', token);
    await session.page.locator('.statusbar', { hasText: 'Signed out' }).waitFor({ state: 'detached', timeout: 30_000 });
    await session.enterSecret('docchat.setGatewayApiKey', apiKey);

    // The tree lists the backend's store (not the workspace's server).
    const pane = session.viewPane('Vector Stores');
    const store = pane.locator('.monaco-list-row', { hasText: 'demo' }).first();
    await store.waitFor({ state: 'visible', timeout: 60_000 });
    await store.click();
    await pane
      .locator('.monaco-list-row', { hasText: 'retention.md' })
      .first()
      .locator('.codicon-check')
      .waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('tree from the user-level URL');

    // Search.
    await session.runCommand(commandTitle('docchat.search'));
    // The store pick (with several stores) is replaced by the search box; typing earlier would go to the pick.
    const quick = await openStoreSearch(session.page, 'demo');
    await quick.locator('input.input').fill('invoices kept');
    await quick.locator('.monaco-list-row', { hasText: 'retention.md' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await session.screenshot('search results');
    await session.page.keyboard.press('Escape');

    // Chat, grounded in the store.
    await session.runCommand(commandTitle('docchat.chat.open'));
    const chat = session.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await chat.locator('.model-select option[value="local-extractive"]').waitFor({ state: 'attached', timeout: 60_000 });
    await chat.locator('.model-select').selectOption('local-extractive');
    await chat.locator('.store-select option', { hasText: 'demo' }).waitFor({ state: 'attached', timeout: 30_000 });
    await chat.locator('.store-select').selectOption({ label: 'demo' });
    const input = chat.locator('textarea.composer-input');
    await input.fill('How long are invoices kept?');
    await input.press('Enter');
    await chat.locator('article.assistant[data-status="done"]').first().waitFor({ timeout: 60_000 });
    assert.match(await chat.locator('article.assistant .markdown-body').first().innerText(), /ten years/);
    await session.screenshot('chat answer');
  }

  it('sets both secrets through the commands and uses the tree, search and chat', async () => {
    await useEverything();
  });

  it('never sent anything to the server named in the workspace settings', async () => {
    await useEverything();
    assert.deepEqual(
      trap.requests.map((r) => `${r.method} ${r.path}`),
      [],
      'the workspace URL was used',
    );
  });

  it('left neither secret in the logs, settings, state, browser storage or webview', async () => {
    await useEverything();
    const browserStorage = await readBrowserStorage(session);
    assert.ok(browserStorage.indexedDbEntries > 0, 'the browser storage was read (VS Code keeps its state in IndexedDB)');
    const output = session.outputChannel();
    assert.ok(output.length > 0, 'the output channel was written');
    for (const [name, secret] of [
      ['token', token],
      ['API key', apiKey],
    ] as const) {
      assert.ok(!output.includes(secret), `the ${name} is in the DocChat output channel`);
      assert.ok(!session.extensionHostLog().includes(secret), `the ${name} is in the extension host log`);
      for (const file of ['User/settings.json', 'Machine/settings.json']) {
        const text = readFileSync(path.join(session.userDataDir, file), 'utf8');
        assert.ok(!text.includes(secret), `the ${name} is in ${file}`);
      }
      assert.deepEqual(filesContaining(session.workspaceDir, secret), [], `the ${name} is in the workspace`);
      // SecretStorage is where it belongs; everything else under the user data (workspace state,
      // global state, webview state, logs) must not hold it.
      const leaks = filesContaining(session.userDataDir, secret).filter((f) => !isSecretStorage(session.userDataDir, f, secret));
      assert.deepEqual(leaks, [], `the ${name} is stored outside SecretStorage`);
      const stored = browserStorage.entries.filter((e) => e.text.includes(secret) && !isBrowserSecretStorage(e));
      assert.deepEqual(
        stored.map((e) => e.where),
        [],
        `the ${name} is in the browser's storage (localStorage, sessionStorage or IndexedDB)`,
      );
      const frames = session.page.frames().filter((frame) => !frame.isDetached());
      assert.ok(frames.length > 1, 'the page and its webviews were read');
      for (const frame of frames) {
        // A frame that cannot be read fails the test: an unread frame proves nothing.
        const html = await frame.content();
        assert.ok(!html.includes(secret), `the ${name} is in a page or webview (${frame.url().slice(0, 80)})`);
      }
    }
  });
});

interface StoredEntry {
  /** Where the entry is: `localStorage key`, `sessionStorage key` or `indexedDB database/store key`. */
  where: string;
  kind: 'localStorage' | 'sessionStorage' | 'indexedDB';
  key: string;
  /** The key and value as text (binary values as UTF-8 and UTF-16LE). */
  text: string;
}

/** Every entry of the workbench page's localStorage, sessionStorage and IndexedDB databases. */
async function readBrowserStorage(session: VSCodeSession): Promise<{ entries: StoredEntry[]; indexedDbEntries: number }> {
  // The function below is compiled with esbuild's keepNames; its helper does not exist in the page.
  await session.page.evaluate('globalThis.__name ??= (fn) => fn');
  const entries = await session.page.evaluate(async () => {
    const asText = (value: unknown): string => {
      if (typeof value === 'string') return value;
      if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
        const bytes =
          value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
        return new TextDecoder('utf-8').decode(bytes) + new TextDecoder('utf-16le').decode(bytes);
      }
      if (value instanceof Blob) return '';
      try {
        return JSON.stringify(value) ?? String(value);
      } catch {
        return String(value);
      }
    };
    const found: { where: string; kind: 'localStorage' | 'sessionStorage' | 'indexedDB'; key: string; text: string }[] = [];
    for (const [kind, storage] of [
      ['localStorage', localStorage],
      ['sessionStorage', sessionStorage],
    ] as const) {
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i)!;
        found.push({ where: `${kind} ${key}`, kind, key, text: `${key}\n${storage.getItem(key)}` });
      }
    }
    const request = <T>(r: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    for (const info of await indexedDB.databases()) {
      const open = indexedDB.open(info.name!);
      const db = await request(open);
      for (const storeName of Array.from(db.objectStoreNames)) {
        const store = db.transaction(storeName, 'readonly').objectStore(storeName);
        const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
        keys.forEach((key, i) =>
          found.push({
            where: `indexedDB ${info.name}/${storeName} ${asText(key)}`,
            kind: 'indexedDB',
            key: asText(key),
            text: `${asText(key)}\n${asText(values[i])}`,
          }),
        );
      }
      db.close();
    }
    return found;
  });
  return { entries, indexedDbEntries: entries.filter((e) => e.kind === 'indexedDB').length };
}

/** The web workbench's own SecretStorage entries (where SecretStorage lives in a browser). */
function isBrowserSecretStorage(entry: StoredEntry): boolean {
  return /^secret:\/\/.*docchat\.docchat/i.test(entry.key) || /"extensionId":"docchat\.docchat"/i.test(entry.key);
}

/**
 * VS Code keeps SecretStorage entries in the global state database under `secret://` keys,
 * encrypted where the platform has a keychain. A hit counts as SecretStorage only when the file is
 * that database and the secret sits in a `secret://` entry of the DocChat extension.
 */
function isSecretStorage(userDataDir: string, relative: string, secret: string): boolean {
  if (!/globalStorage[\\/]state\.vscdb$/.test(relative)) return false;
  const data = readFileSync(path.join(userDataDir, relative)).toString('latin1');
  const at = data.indexOf(secret);
  const before = data.slice(Math.max(0, at - 512), at);
  return /secret:\/\/[^\0]*docchat\.docchat/i.test(before);
}
