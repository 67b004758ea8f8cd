import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'docchat.docchat';

describe('DocChat in the extension host', () => {
  it('runs inside VS Code 1.100', () => {
    assert.match(vscode.version, /^1\.100\./, `this suite targets VS Code 1.100, got ${vscode.version}`);
  });

  it('is installed and activates without error', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not installed`);
    await extension.activate(); // rejects when activate() throws
    assert.equal(extension.isActive, true);
  });

  it('contributes the DocChat view container and the stores view', () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    const containers: Array<{ id: string }> = manifest.contributes.viewsContainers.activitybar;
    assert.ok(
      containers.some((c) => c.id === 'docchat'),
      'no activity-bar container "docchat"',
    );
    const views: Array<{ id: string }> = manifest.contributes.views.docchat;
    assert.ok(
      views.some((v) => v.id === 'docchat.stores'),
      'no view "docchat.stores" in the container',
    );
  });
});
