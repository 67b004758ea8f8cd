import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { eventually } from './documents/fixtures';

const EXTENSION_ID = 'docchat.docchat';

interface Manifest {
  contributes: { commands?: Array<{ command: string }>; views?: Record<string, Array<{ id: string }>> };
}

describe('DocChat commands', () => {
  let manifest: Manifest;
  let registered: Set<string>;

  before(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not installed`);
    await extension.activate();
    manifest = extension.packageJSON;
    registered = new Set(await vscode.commands.getCommands(true));
  });

  it('registers every command contributed in package.json', () => {
    const contributed = (manifest.contributes.commands ?? []).map((c) => c.command);
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const missing = contributed.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `contributed but not registered after activation: ${missing.join(', ')}`);
  });

  it('contributes every docchat command it registers', () => {
    const contributed = new Set((manifest.contributes.commands ?? []).map((c) => c.command));
    // VS Code itself registers `<viewId>.focus`, `<viewId>.resetViewLocation`, … for each view.
    const viewIds = Object.values(manifest.contributes.views ?? {}).flat().map((v) => v.id);
    const isViewCommand = (id: string) => viewIds.some((view) => id.startsWith(`${view}.`));
    const extra = [...registered].filter((id) => id.startsWith('docchat.') && !contributed.has(id) && !isViewCommand(id));
    assert.deepEqual(extra, [], `registered but not contributed in package.json: ${extra.join(', ')}`);
  });

  it('shows the DocChat output channel', async () => {
    // An output channel on screen is a text editor of the `output` scheme, named after the extension and channel.
    const docChatOutput = () => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'output' && e.document.uri.path === `${EXTENSION_ID}.DocChat`);
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await eventually(() => (docChatOutput() ? undefined : true), 'the panel to close');
    await vscode.commands.executeCommand('docchat.showOutput');
    const editor = await eventually(docChatOutput, 'the DocChat output channel on screen');
    assert.ok(!editor.viewColumn, 'shown in the panel, not as an editor tab');
  });
});
