import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'docchat.docchat';

describe('DocChat in the extension host', () => {
  it('runs inside the VS Code version the run is meant for, which DocChat supports', () => {
    const expected = process.env.DOCCHAT_EXPECTED_VSCODE;
    if (expected) assert.equal(vscode.version, expected, `this run targets VS Code ${expected}`);
    const engines: string = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.engines.vscode;
    const [major, minor] = engines.replace(/^\^/, '').split('.').map(Number);
    const [hostMajor, hostMinor] = vscode.version.split('.').map(Number);
    assert.ok(
      hostMajor > major || (hostMajor === major && hostMinor >= minor),
      `VS Code ${vscode.version} is older than engines.vscode ${engines}`,
    );
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
