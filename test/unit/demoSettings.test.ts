import * as assert from 'node:assert/strict';

/** `npm start`'s VS Code profile (scripts/lib/demoSettings.mjs). */
describe("npm start's VS Code settings", () => {
  const load = async () => (await import('../../scripts/lib/demoSettings.mjs')).demoSettings;

  it("opens without VS Code's Chat in the secondary side bar, and leaves chat participants (@docchat) on", async () => {
    const settings = (await load())();
    assert.equal(settings['workbench.secondarySideBar.defaultVisibility'], 'hidden');
    assert.equal(settings['chat.disableAIFeatures'], undefined, 'the Chat view and @docchat stay available');
    assert.equal(settings['security.workspace.trust.enabled'], false);
  });

  it("keeps the user's own changes, but never turns workspace trust back on", async () => {
    const settings = (await load())({
      'workbench.secondarySideBar.defaultVisibility': 'visible',
      'security.workspace.trust.enabled': true,
    });
    assert.equal(settings['workbench.secondarySideBar.defaultVisibility'], 'visible');
    assert.equal(settings['security.workspace.trust.enabled'], false);
  });
});
