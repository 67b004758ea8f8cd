import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive, readDiscovery } from '../../src/common/discoveryFile';
import { captureFailures, launchVSCode, manifest, pollUntil, type VSCodeSession } from '../support/harness';

// DocChat starts nothing in a window that does not use it: after VS Code started (every
// `onStartupFinished` extension ran) no DocChat backend runs and no discovery file is written.
// Showing the DocChat view is the first use, and it starts the local backend.

const EXTENSION_ID = `${manifest.publisher}.${manifest.name}`;

/**
 * An extension that activates on `onStartupFinished` and writes `startup.json` then, and whose
 * "Startup Probe: Report" command writes whether DocChat is active. Its activation says that the
 * window finished starting, the moment DocChat used to start at.
 */
function writeStartupProbe(outDir: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-startup-probe-'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'startup-probe',
      publisher: 'docchat-tests',
      version: '0.0.1',
      engines: { vscode: '^1.100.0' },
      main: './extension.js',
      activationEvents: ['onStartupFinished'],
      contributes: { commands: [{ command: 'startupProbe.report', title: 'Report', category: 'Startup Probe' }] },
    }),
  );
  writeFileSync(
    path.join(dir, 'extension.js'),
    `const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const out = ${JSON.stringify(outDir)};
exports.activate = (context) => {
  fs.writeFileSync(path.join(out, 'startup.json'), '{}');
  context.subscriptions.push(vscode.commands.registerCommand('startupProbe.report', () => {
    const docchat = vscode.extensions.getExtension(${JSON.stringify(EXTENSION_ID)});
    fs.writeFileSync(path.join(out, 'report.json'), JSON.stringify({ installed: !!docchat, active: !!docchat && docchat.isActive }));
  }));
};`,
  );
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  return dir;
}

/** Processes whose command line names this profile's DocChat storage (Linux /proc). */
function backendProcesses(storage: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmdline.some((arg) => arg.startsWith(storage)) && cmdline.some((arg) => arg.endsWith('backend-cli.js'))) pids.push(Number(entry));
    } catch {
      // The process ended while it was read.
    }
  }
  return pids;
}

describe('Activation: nothing starts before DocChat is used (e2e, Local mode)', function () {
  let session: VSCodeSession | undefined;
  let probeDir: string;
  let probeOut: string;

  before(() => {
    probeOut = mkdtempSync(path.join(os.tmpdir(), 'docchat-startup-out-'));
    probeDir = writeStartupProbe(probeOut);
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    rmSync(probeDir, { recursive: true, force: true });
    rmSync(probeOut, { recursive: true, force: true });
  });

  it('starts no backend and writes no discovery file at startup; showing its view starts the backend', async function () {
    session = await launchVSCode({
      name: this.test!.fullTitle(),
      useDocChat: false,
      extraExtensions: [probeDir],
      workspaceFiles: { 'notes.md': '# Notes\n' },
    });
    const storage = path.join(session.userDataDir, 'User', 'globalStorage', EXTENSION_ID);
    const discoveryFile = path.join(storage, 'backend.json');

    // The window finished starting: every onStartupFinished extension was activated.
    await pollUntil(
      () => existsSync(path.join(probeOut, 'startup.json')),
      (done) => done,
      { timeoutMs: 120_000, what: 'the startup probe activating on onStartupFinished' },
    );
    await session.runCommand('Startup Probe: Report');
    const report = await pollUntil(
      () => (existsSync(path.join(probeOut, 'report.json')) ? readFileSync(path.join(probeOut, 'report.json'), 'utf8') : ''),
      (text) => text !== '',
      { timeoutMs: 60_000, what: 'the startup probe report' },
    );
    // VS Code may itself ask for the extensions' MCP servers at startup (1.104 does, to learn
    // their tools): that activates DocChat without any use of it, and must still start nothing.
    const activatedBy = /_doActivateExtension docchat\.docchat, startup: \w+, activationEvent: '([^']+)'/.exec(
      session.extensionHostLog(),
    )?.[1];
    const expectedReport = { installed: true, active: activatedBy === 'onMcpCollection:docchat.mcpServer' };
    assert.deepEqual(
      JSON.parse(report),
      expectedReport,
      `DocChat activated (by ${activatedBy ?? 'nothing logged'}) although nothing of it was used`,
    );
    assert.equal(existsSync(discoveryFile), false, 'a discovery file was written before DocChat was used');
    assert.deepEqual(backendProcesses(storage), [], 'a DocChat backend runs before DocChat was used');
    assert.doesNotMatch(session.outputChannel(), /local backend/i);
    await session.screenshot('started, DocChat untouched');

    // The first use: the DocChat view. It starts the local backend and connects.
    await session.openView();
    await session.page.locator('.statusbar', { hasText: 'DocChat: Local' }).waitFor({ state: 'visible', timeout: 120_000 });
    const info = await readDiscovery(discoveryFile);
    assert.ok(info, 'no discovery file after the view was shown');
    assert.ok(isProcessAlive(info.pid), `the backend ${info.pid} named by the discovery file is not running`);
    assert.deepEqual(backendProcesses(storage), [info.pid]);
    await session.waitForOutput(/DocChat is used in this window \(the Vector Stores view\)/);
    await session.screenshot('view shown, backend started');
  });
});
