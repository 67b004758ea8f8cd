import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { commandTitle, captureFailures, launchVSCode, pollUntil, type VSCodeSession } from '../support/harness';

// Find People by Skill in a real VS Code, in Local mode: the embedded backend serves skillshare
// over its bundled sample people directory. The picker searches as the user types, shows name,
// matching terms and information, and picking a person opens their skillshare link (VS Code asks
// before opening an external website; the dialog names the link).

describe('Find People by Skill (e2e, Local mode, sample directory)', function () {
  let session: VSCodeSession;

  before(async function () {
    session = await launchVSCode({ name: 'skills' });
    // The gateway is the embedded backend: wait until it is listening.
    await session.page.locator('.statusbar', { hasText: /DocChat: Local/ }).waitFor({ state: 'visible', timeout: 90_000 });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
  });

  it('lists matching people with their top matching terms and information', async () => {
    await session.runCommand(commandTitle('docchat.findPeopleBySkill'));
    const widget = session.page.locator('.quick-input-widget');
    await widget.locator('input.input').fill('kubernetes incident response');
    const amara = widget.locator('.monaco-list-row', { hasText: 'Amara Okafor' });
    await amara.first().waitFor({ state: 'visible', timeout: 30_000 });
    const rows = await widget.locator('.monaco-list-row').allInnerTexts();
    // Best match first; people without any matching term are not listed.
    assert.match(rows[0]!, /Amara Okafor/);
    assert.ok(!rows.some((r) => /Diego Fernández/.test(r)), `unexpected row: ${rows.join(' | ')}`);
    const first = rows[0]!;
    assert.match(first, /matches: .*Kubernetes/);
    assert.match(first, /incident response/);
    assert.match(first, /Platform Engineering, Berlin/);
    await session.screenshot('people matching kubernetes');

    // Typing another query searches again.
    await widget.locator('input.input').fill('VS Code extensions webviews');
    await widget.locator('.monaco-list-row', { hasText: 'Jonas Lindqvist' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await widget.locator('.monaco-list-row').allInnerTexts())[0]!, /Jonas Lindqvist/);
    await session.screenshot('people matching vs code extensions');
  });

  it("opens the picked person's skillshare link", async () => {
    const widget = session.page.locator('.quick-input-widget');
    await widget.locator('.monaco-list-row', { hasText: 'Jonas Lindqvist' }).first().click();
    // VS Code's link protection asks before opening an external site, naming it.
    const dialog = session.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    const text = await dialog.innerText();
    await session.screenshot('open external link dialog');
    assert.match(text, /skillshare\.example\.com\/people\/jonas-lindqvist/);
    await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
    assert.match(session.outputChannel(), /\[skills\] Opening https:\/\/skillshare\.example\.com\/people\/jonas-lindqvist/);
  });

  it("Choose Embedding Model offers the gateway's live list and writes the setting", async () => {
    await session.runCommand(commandTitle('docchat.chooseEmbeddingModel'));
    const widget = session.page.locator('.quick-input-widget');
    const local = widget.locator('.monaco-list-row', { hasText: 'local-hashing-embed' });
    await local.first().waitFor({ state: 'visible', timeout: 30_000 });
    const rows = await widget.locator('.monaco-list-row').allInnerTexts();
    assert.match(rows[0]!, /Default.*current/s, 'nothing chosen yet: the default is current');
    await session.screenshot('embedding models');
    await local.first().click();
    const settingsFile = path.join(session.userDataDir, 'User/settings.json');
    const written = await pollUntil(
      () => JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>,
      (settings) => settings['docchat.gateway.embeddingModel'] !== undefined,
      { timeoutMs: 30_000, what: 'the embedding model written to the user settings' },
    );
    assert.equal(written['docchat.gateway.embeddingModel'], 'local-hashing-embed');

    // Run again: the chosen model is marked as current.
    await session.runCommand(commandTitle('docchat.chooseEmbeddingModel'));
    const current = widget.locator('.monaco-list-row', { hasText: 'local-hashing-embed' });
    await current.first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await current.first().innerText(), /current/);
    await session.closeQuickInput();
  });

  it('says so when nobody matches', async () => {
    await session.runCommand(commandTitle('docchat.findPeopleBySkill'));
    const widget = session.page.locator('.quick-input-widget');
    await widget.locator('input.input').fill('zyxwvut');
    await widget
      .locator('.monaco-list-row', { hasText: 'No one matches “zyxwvut”' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await session.closeQuickInput();
  });
});
