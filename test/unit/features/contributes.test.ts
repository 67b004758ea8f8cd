import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileObject, VectorStore, VectorStoreFile } from '../../../src/api/documents/schemas';
import { Commands, Settings } from '../../../src/common/constants';
import { ContextValues, presentStore, presentStoreFile } from '../../../src/features/stores/presentation';
import { contributedSettings } from '../../support/manifestSettings';

// The menus of the Vector Stores view are driven by contextValues; a `when` clause that no node
// matches silently hides the command, so the clauses are checked against the real node values.

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
const itemMenus: Array<{ command: string; when: string; group?: string }> = manifest.contributes.menus['view/item/context'];

/** The `viewItem =~ /…/` regular expression of a when clause, as VS Code reads it. */
function viewItemPattern(when: string): RegExp {
  const match = /viewItem =~ \/(.+?)\/(?=\s|$)/.exec(when);
  assert.ok(match, `no viewItem pattern in "${when}"`);
  return new RegExp(match[1]!);
}

function commandsFor(contextValue: string): Set<string> {
  return new Set(itemMenus.filter((m) => viewItemPattern(m.when).test(contextValue)).map((m) => m.command));
}

const NOW = 1_750_000_000;
const store = { id: 'vs_1', name: 's', created_at: NOW, expires_at: null, metadata: {} } as VectorStore;
const file = (status: string) => ({ id: 'file-1', status, last_error: null, metadata: {} }) as VectorStoreFile;
const info = { id: 'file-1', filename: 'a.md', metadata: {} } as FileObject;

describe('Vector Stores view menus', () => {
  it('offer search, attach, copy and refresh on every store, expired or not', () => {
    for (const value of [presentStore(store, NOW).contextValue, presentStore({ ...store, expires_at: NOW - 1 }, NOW).contextValue]) {
      const commands = commandsFor(value);
      for (const id of [Commands.search, Commands.attachFiles, Commands.attachCurrentFile, Commands.copyId, Commands.refreshNode]) {
        assert.ok(commands.has(id), `${id} is missing on "${value}"`);
      }
      assert.ok(!commands.has(Commands.setStoreFileMetadata), 'file commands do not show on stores');
    }
  });

  it('offer metadata, search in files, copy and refresh on store files of any status', () => {
    for (const status of ['in_progress', 'completed', 'failed', 'cancelled', 'something new']) {
      const value = presentStoreFile(file(status), info).contextValue;
      const commands = commandsFor(value);
      for (const id of [
        Commands.setStoreFileMetadata,
        Commands.setFileMetadata,
        Commands.searchInFiles,
        Commands.copyId,
        Commands.refreshNode,
      ]) {
        assert.ok(commands.has(id), `${id} is missing on "${value}"`);
      }
      assert.ok(!commands.has(Commands.attachFiles), 'store commands do not show on files');
    }
  });

  it('offer nothing on "Load more" and message rows', () => {
    assert.equal(commandsFor(ContextValues.loadMore).size, 0);
    assert.equal(commandsFor(ContextValues.message).size, 0);
  });

  it('keep the URL, network and field-name settings in machine scope', () => {
    const properties = contributedSettings(manifest);
    for (const key of [
      Settings.documentsUrl,
      Settings.gatewayUrl,
      Settings.proxy,
      Settings.caFiles,
      Settings.strictSSL,
      Settings.allowInsecureHttp,
      Settings.skipOcrField,
      Settings.fileIdsField,
    ]) {
      assert.equal(properties[`docchat.${key}`]?.scope, 'machine', `docchat.${key}`);
    }
  });

  it('contribute every setting the extension reads', () => {
    const properties = contributedSettings(manifest);
    const missing = Object.values(Settings).filter((key) => !properties[`docchat.${key}`]);
    assert.deepEqual(missing, []);
  });
});

describe('the settings as the Settings editor shows them', () => {
  const properties = contributedSettings(manifest);
  const nls: Record<string, string> = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.nls.json'), 'utf8'));

  it('names every choice of a choice setting in words, not as its raw value ("asTheyStream")', () => {
    for (const [key, setting] of Object.entries(properties)) {
      if (!Array.isArray(setting.enum)) continue;
      const labels = setting.enumItemLabels as string[] | undefined;
      assert.equal(labels?.length, setting.enum.length, `${key} has a label for each choice`);
      for (const label of labels!) {
        const text = nls[label.slice(1, -1)] ?? label;
        assert.match(text, /^[A-Z][a-z]+( [a-z]+)*$/, `${key}: "${text}" reads as words`);
      }
    }
  });

  it('names each item of a list of choices in words: the list shows items by their raw value ("eng")', () => {
    const text = (value: unknown) => nls[String(value).slice(1, -1)] ?? String(value);
    for (const [key, setting] of Object.entries(properties)) {
      const items = setting.items as { enum?: string[]; enumItemLabels?: string[]; enumDescriptions?: string[] } | undefined;
      if (!Array.isArray(items?.enum)) continue;
      const labels = items.enumItemLabels?.map(text) ?? [];
      const descriptions = items.enumDescriptions?.map(text) ?? [];
      assert.equal(labels.length, items.enum.length, `${key} has a label for each item`);
      assert.equal(descriptions.length, items.enum.length, `${key} has a description for each item`);
      const description = text(setting.markdownDescription ?? setting.description);
      items.enum.forEach((value, i) => {
        // The Settings editor's list and its item picker show the value, with the item's description beside it.
        assert.ok(description.includes(`\`${value}\` ${labels[i]}`), `${key}: its description says "\`${value}\` ${labels[i]}"`);
        assert.ok(descriptions[i]!.startsWith(`${labels[i]} (${value})`), `${key}: "${descriptions[i]}" starts with its name`);
      });
    }
  });

  it('says the project code is for the company gateway only', () => {
    const description = nls[String(properties['docchat.gateway.projectCode']!.markdownDescription).slice(1, -1)]!;
    assert.match(description, /^\*\*Company gateway only\.\*\*/);
    assert.match(description, /Local mode.*not use it/);
  });

  it('marks the request-field names of the documents service as advanced, and sets no project code by default', () => {
    for (const key of ['docchat.api.skipOcrField', 'docchat.api.fileIdsField']) {
      assert.deepEqual(properties[key]!.tags, ['advanced'], key);
      assert.match(nls[String(properties[key]!.markdownDescription).slice(1, -1)]!, /^\*\*Advanced\*\*/, key);
    }
    assert.equal(properties['docchat.gateway.projectCode']!.default, '', 'no "NA" shown as if it were a project');
  });
});
