/**
 * What the Marketplace and VS Code read from the manifest to present DocChat and to decide how far
 * to trust it: the icon, the keywords, and what runs in Restricted Mode and virtual workspaces.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { contributedSettings } from '../support/manifestSettings';

const ROOT = path.resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const nls = JSON.parse(readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
const settings = contributedSettings<{ scope?: string }>(manifest);

/** The text VS Code shows for a manifest string (`%key%` from package.nls.json). */
const shown = (value: string): string => value.replace(/^%([\w.-]+)%$/, (_, key: string) => nls[key] ?? value);

/**
 * Every setting a workspace may set (not machine-scoped), and whether DocChat acts on it by itself
 * (restricted until the folder is trusted) or it only shapes what the user asked for. A new setting
 * fails here until it is placed in one list or the other.
 */
const RESTRICTED: Record<string, string> = {
  'docchat.sync.watch': 'starts syncs, and so uploads, when files of a followed folder change',
  'docchat.sync.removeDeleted': 'removes store files without asking',
};
const WORKSPACE_SAFE: Record<string, string> = {
  'docchat.gateway.projectCode': 'a header sent to the service of the user settings',
  'docchat.gateway.embeddingModel': 'a model of the gateway of the user settings',
  'docchat.chat.defaultModel': 'the model a new chat starts with, of that gateway',
  'docchat.chat.announceAnswers': 'what a screen reader hears',
  'docchat.stores.pageSize': 'how many rows the tree loads',
  'docchat.search.maxResults': 'how many results a search asks for',
  'docchat.attach.skipOcr': 'asked about, or applied to, an attach the user started',
  'docchat.sync.exclude': 'leaves files out of a sync the user started; it can only send less',
};

function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', `${file} is a PNG`);
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('The manifest for the Marketplace and Workspace Trust', () => {
  it('has a 128×128 PNG icon that the package holds', () => {
    assert.equal(manifest.icon, 'media/icon.png');
    assert.deepEqual(pngSize(path.join(ROOT, manifest.icon)), { width: 128, height: 128 });
    const ignore = readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n');
    assert.ok(ignore.includes(`!${manifest.icon}`), '.vscodeignore lets the icon into the .vsix');
  });

  it('has keywords, at most the 30 the Marketplace takes', () => {
    const keywords = manifest.keywords as string[];
    assert.ok(Array.isArray(keywords) && keywords.length >= 5 && keywords.length <= 30, `keywords: ${JSON.stringify(keywords)}`);
    assert.equal(new Set(keywords).size, keywords.length, 'no keyword twice');
  });

  it('runs in Restricted Mode, limited, and says what is held back', () => {
    const untrusted = manifest.capabilities?.untrustedWorkspaces;
    assert.equal(untrusted?.supported, 'limited');
    const description = shown(untrusted.description as string);
    for (const setting of untrusted.restrictedConfigurations as string[]) {
      assert.ok(description.includes(setting), `the description names ${setting}`);
    }
  });

  it('restricts every workspace setting DocChat acts on by itself, and places every other one', () => {
    const workspaceSettable = Object.keys(settings).filter((key) => settings[key]!.scope !== 'machine');
    const unplaced = workspaceSettable.filter((key) => !(key in RESTRICTED) && !(key in WORKSPACE_SAFE));
    assert.deepEqual(unplaced, [], 'a setting a workspace can set: restrict it in Restricted Mode, or say why it is safe');
    assert.deepEqual([...manifest.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(), Object.keys(RESTRICTED).sort());
    const stale = [...Object.keys(RESTRICTED), ...Object.keys(WORKSPACE_SAFE)].filter((key) => !workspaceSettable.includes(key));
    assert.deepEqual(stale, [], 'settings placed here that are gone or machine-scoped');
  });

  it('supports virtual workspaces, limited: folder sync, which reads the disk, is not offered there', () => {
    const virtual = manifest.capabilities?.virtualWorkspaces;
    assert.equal(virtual?.supported, 'limited');
    assert.match(shown(virtual.description as string), /[Ff]older sync/);
    const menus = Object.values(manifest.contributes.menus as Record<string, Array<{ command: string; when?: string }>>).flat();
    const syncEntries = menus.filter((item) => item.command === 'docchat.sync.folder');
    assert.ok(syncEntries.length >= 3);
    for (const item of syncEntries) assert.match(item.when ?? '', /!virtualWorkspace/, JSON.stringify(item));
  });

  it("the Vector Stores view's menu offers no credential Local mode does not use", () => {
    const titleMenu = (manifest.contributes.menus as Record<string, Array<{ command: string; when?: string }>>)['view/title'];
    const when = (command: string) => titleMenu.find((item) => item.command === command)?.when ?? '';
    // Local mode has no documents service to sign in to; its gateway key matters only with a gateway configured.
    assert.match(when('docchat.setDocumentsToken'), /&& !docchat\.localMode$/);
    assert.match(when('docchat.setGatewayApiKey'), /&& \(!docchat\.localMode \|\| config\.docchat\.gateway\.url\)$/);
  });

  it('offers Use a Language Model… in the palette whenever Local mode is set, also while its connection comes up', () => {
    const palette = (manifest.contributes.menus as Record<string, Array<{ command: string; when?: string }>>).commandPalette;
    const when = palette.find((item) => item.command === 'docchat.local.useLanguageModel')?.when;
    // Local mode is an empty docchat.documents.url (planConnection). The palette filters its list
    // once, when it opens, and the connection's context keys arrive one after another: a clause
    // that reads the connection state hid the command from a palette opened as Local mode came up.
    assert.equal(when, 'docchat.localMode || !config.docchat.documents.url');
  });
});
