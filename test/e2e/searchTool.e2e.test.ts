import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandTitle, captureFailures, launchVSCode, pickQuickItem, type VSCodeSession } from '../support/harness';

// DocChat's language model tool, invoked through VS Code itself (`vscode.lm.invokeTool`) in a
// real VS Code 1.100 without any chat extension, against the embedded backend (Local mode). Without
// a chat session VS Code asks for confirmation in a dialog: it must name the store; confirming
// returns the store's passages, declining runs nothing. A tiny extension installed next to DocChat
// stands in for "another chat" calling the tool and shows what came back.

const STORE = 'e2e-tools';
const GUIDE =
  '# Release guide\n\nTo roll back a release, run the rollback pipeline with the previous tag and watch the canary dashboards.\n';

function writeCallerExtension(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-tool-caller-'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'tool-caller',
      publisher: 'docchat-tests',
      version: '0.0.1',
      engines: { vscode: '^1.100.0' },
      main: './extension.js',
      activationEvents: ['onCommand:toolCaller.invoke', 'onCommand:toolCaller.openGuide'],
      contributes: {
        commands: [
          { command: 'toolCaller.invoke', title: 'Invoke DocChat Search Tool', category: 'Tool Caller' },
          { command: 'toolCaller.openGuide', title: 'Open Release Guide', category: 'Tool Caller' },
        ],
      },
    }),
  );
  writeFileSync(
    path.join(dir, 'extension.js'),
    `const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('toolCaller.openGuide', async () => {
    const folder = vscode.workspace.workspaceFolders[0].uri;
    await vscode.window.showTextDocument(vscode.Uri.joinPath(folder, 'release-guide.md'));
  }));
  context.subscriptions.push(vscode.commands.registerCommand('toolCaller.invoke', async () => {
    try {
      const result = await vscode.lm.invokeTool('docchat_searchVectorStore', { input: { query: 'roll back a release', store: ${JSON.stringify(STORE)} }, toolInvocationToken: undefined });
      const text = result.content.map((p) => p.value ?? '').join('');
      vscode.window.showInformationMessage('TOOL RESULT: ' + text.replace(/\\s+/g, ' ').slice(0, 300));
    } catch (error) {
      vscode.window.showWarningMessage('TOOL ERROR: ' + (error && error.name) + ': ' + (error && error.message));
    }
  }));
};`,
  );
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  return dir;
}

/** The command palette can be closed by a focus change still under way: try once more. */
async function runCommandSettled(session: VSCodeSession, title: string): Promise<void> {
  try {
    await session.runCommand(title);
  } catch {
    await session.closeQuickInput();
    await session.runCommand(title);
  }
}

async function notificationMatching(session: VSCodeSession, pattern: RegExp): Promise<string> {
  const toast = session.page.locator('.notifications-toasts .notification-list-item-message', { hasText: pattern });
  await toast.first().waitFor({ state: 'visible', timeout: 30_000 });
  return toast.first().innerText();
}

describe('DocChat search tool via vscode.lm.invokeTool (e2e, Local mode)', function () {
  let session: VSCodeSession;
  let callerDir: string;

  before(async function () {
    callerDir = writeCallerExtension();
    session = await launchVSCode({
      name: 'search tool',
      settings: { 'docchat.attach.skipOcr': 'never' },
      workspaceFiles: { 'release-guide.md': GUIDE },
      extraExtensions: [callerDir],
    });
    try {
      await setUpStore();
    } catch (error) {
      await session.screenshot('setup failed').catch(() => undefined);
      throw error;
    }
  });

  async function setUpStore(): Promise<void> {
    await session.page.locator('.statusbar', { hasText: /DocChat: Local/ }).waitFor({ state: 'visible', timeout: 90_000 });
    // A store with one converted file, made through DocChat's own commands.
    await session.runCommand(commandTitle('docchat.createStore'));
    await session.answerQuickInput(STORE);
    await pickQuickItem(session.page, `Create "${STORE}"`);
    // Creating reveals the store in the tree, which takes the focus: let that finish first.
    await session.page.locator('.part.sidebar .monaco-list-row', { hasText: STORE }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await runCommandSettled(session, 'Tool Caller: Open Release Guide');
    await session.page
      .locator('.tabs-container .tab.active', { hasText: 'release-guide.md' })
      .waitFor({ state: 'visible', timeout: 20_000 });
    await runCommandSettled(session, commandTitle('docchat.attachCurrentFile'));
    await pickQuickItem(session.page, STORE);
    await notificationMatching(session, /DocChat: attached "release-guide\.md" to "e2e-tools"/);
  }

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    rmSync(callerDir, { recursive: true, force: true });
  });

  it('asks for confirmation naming the store, then returns its passages', async () => {
    await session.runCommand('Tool Caller: Invoke DocChat Search Tool');
    const dialog = session.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    const text = await dialog.innerText();
    await session.screenshot('tool confirmation dialog');
    assert.match(text, /Search the DocChat vector store “e2e-tools” \(vs_[^)]+\)\?/);
    assert.match(text, /roll back a release/);
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: /^Yes$/ }).click();
    const result = await notificationMatching(session, /TOOL (RESULT|ERROR)/);
    await session.screenshot('tool result');
    assert.match(result, /TOOL RESULT: 1 passage from the vector store "e2e-tools" matching "roll back a release"/);
    assert.match(result, /\[1\] release-guide\.md \(score \d\.\d\d\) .*To roll back a release, run the rollback pipeline/);
    // The log line the declining test counts: each search the tool runs leaves one.
    assert.match(session.outputChannel(), /Search tool: 1 passages from vs_/);
  });

  it('runs nothing when the confirmation is declined', async () => {
    const searchesBefore = (session.outputChannel().match(/Search tool: \d+ passages/g) ?? []).length;
    await session.runCommand('Tool Caller: Invoke DocChat Search Tool');
    const dialog = session.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: /^Cancel$/ }).click();
    const result = await notificationMatching(session, /TOOL ERROR/);
    assert.match(result, /Canceled|Cancel/i);
    assert.equal((session.outputChannel().match(/Search tool: \d+ passages/g) ?? []).length, searchesBefore);
  });
});
