import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { PassageDocuments, type Passage } from '../../../../src/features/search/passages';
import { eventually, servicesFor, startBackend, type TestBackend, type TestServices } from './fixtures';

const encode = (text: string) => new TextEncoder().encode(text);
const BODY = [
  '# Release guide',
  '',
  'Intro paragraph about releases.',
  '',
  '## Rollback',
  '',
  'To roll back a release, run the rollback pipeline with the previous tag.',
  '',
].join('\n');

describe('opening search passages (extension host, real backend)', () => {
  let backend: TestBackend;
  let services: TestServices;
  let passages: PassageDocuments;
  let channel: vscode.LogOutputChannel;
  let storeId: string;
  let fileId: string;

  before(async () => {
    backend = await startBackend();
    channel = vscode.window.createOutputChannel('DocChat passage tests', { log: true });
    services = servicesFor(backend.client, channel);
    passages = new PassageDocuments(services, 'docchat-test');
    storeId = (await backend.client.createVectorStore({ name: 'passages' })).id;
    const file = await backend.client.uploadFile({ filename: 'release-guide-unique.md', data: encode(BODY) });
    fileId = file.id;
    await backend.client.attachFile(storeId, { file_id: fileId });
    await backend.client.waitUntilProcessed(storeId, fileId, { initialDelayMs: 20, maxDelayMs: 100 });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    passages?.dispose();
    services?.dispose();
    channel?.dispose();
    await backend?.stop();
  });

  async function passageFor(query: string, filename: string): Promise<Passage> {
    const result = await backend.client.search(storeId, { query });
    const hit = result.data.find((d) => d.file_id === fileId);
    assert.ok(hit, `no result for "${query}"`);
    return { storeId, storeName: 'passages', fileId, filename, content: hit.content, score: hit.score };
  }

  it('shows the converted file read-only in a virtual document, at the passage', async () => {
    const passage = await passageFor('rollback pipeline', 'release-guide-unique.md');
    const editor = await passages.open(passage);
    assert.equal(editor.document.uri.scheme, 'docchat-test');
    assert.equal(editor.document.languageId, 'markdown');
    const text = editor.document.getText();
    assert.equal(text, await backend.client.retrieveVectorStoreFileContent(storeId, fileId), 'the converted markdown of the store file');
    const at = editor.document.offsetAt(editor.selection.active);
    assert.ok(text.slice(at).startsWith(passage.content.trim().slice(0, 20)), 'the cursor is at the passage');
    let edited: boolean;
    try {
      edited = await editor.edit((b) => b.insert(new vscode.Position(0, 0), 'x'));
    } catch {
      edited = false;
    }
    assert.equal(edited && editor.document.isDirty, false, 'the virtual document is read-only');
  });

  it('opens the workspace file of the same name at the passage when there is one', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the suite runs with a workspace folder open');
    const local = path.join(folder.uri.fsPath, 'release-guide-local.md');
    writeFileSync(local, BODY);
    const passage = await passageFor('rollback pipeline', 'release-guide-local.md');
    const editor = await eventually(
      async () => {
        const e = await passages.open(passage);
        return e.document.uri.scheme === 'file' ? e : undefined;
      },
      'the workspace file (the file search may need a moment to index it)',
      40,
    );
    assert.equal(editor.document.uri.fsPath, local);
    const line = editor.document.lineAt(editor.selection.active.line).text;
    assert.ok(passage.content.includes(line.trim()) && line.trim().length > 0, `the cursor is on a line of the passage: "${line}"`);
  });
});
