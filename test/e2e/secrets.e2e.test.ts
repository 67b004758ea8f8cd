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

  it('sets both secrets through the commands and uses the tree, search and chat', async () => {
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
    const quick = session.page.locator('.quick-input-widget');
    await quick.locator('.monaco-list-row', { hasText: 'demo' }).first().click({ timeout: 30_000 });
    // The store pick is replaced by the search box; typing earlier would go to the pick.
    await quick.locator('.quick-input-title', { hasText: 'Search "demo"' }).waitFor({ state: 'visible', timeout: 15_000 });
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
  });

  it('never sent anything to the server named in the workspace settings', () => {
    assert.deepEqual(
      trap.requests.map((r) => `${r.method} ${r.path}`),
      [],
      'the workspace URL was used',
    );
  });

  it('left neither secret in the logs, settings, state, browser storage or webview', async () => {
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
      const browserStorage = await session.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
      assert.ok(!browserStorage.includes(secret), `the ${name} is in the browser's storage`);
      for (const frame of session.page.frames()) {
        const html = await frame.content().catch(() => '');
        assert.ok(!html.includes(secret), `the ${name} is in a page or webview (${frame.url().slice(0, 80)})`);
      }
    }
  });
});

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
