/**
 * A token goes only where the user said: the settings that decide where a token is sent (service
 * URLs, proxy, CAs, TLS checks, plain-http permission, wire field names) are contributed with
 * `"scope": "machine"`, and the config reader takes only their user-level value, so a workspace's
 * `.vscode/settings.json` cannot redirect a token. The reader runs here against a configuration
 * whose workspace and folder levels carry hostile values (`vscode` is the only module faked).
 * The redirect side is tested in test/unit/api/errors.test.ts ("does not follow a redirect to
 * another origin, so the token stays home") and, for every operation, test/unit/reliability/faults.test.ts.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadWithFakeVscode } from '../../support/fakeVscode';
import { contributedSettings } from '../../support/manifestSettings';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const properties = contributedSettings<{ scope?: string }>(manifest);

/** Settings that decide where (and how safely) a token travels. */
const TOKEN_ROUTING = /\.(url|proxy|caFiles|strictSSL|allowInsecureHttp|skipOcrField|fileIdsField)$/;

interface Levels {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** A configuration that merges levels like VS Code does when the scope is not enforced. */
function fakeVscode(levels: Record<string, Levels>) {
  const effective = (l: Levels | undefined) => l?.workspaceFolderValue ?? l?.workspaceValue ?? l?.globalValue ?? l?.defaultValue;
  const section = (prefix: string) => ({
    get: (key: string) => effective(levels[prefix ? `${prefix}.${key}` : key]),
    inspect: (key: string) => ({ key, ...(levels[prefix ? `${prefix}.${key}` : key] ?? {}) }),
    update: async () => undefined,
  });
  class EventEmitter {
    event = () => ({ dispose() {} });
    fire() {}
    dispose() {}
  }
  return {
    workspace: { getConfiguration: (prefix = '') => section(prefix), onDidChangeConfiguration: () => ({ dispose() {} }) },
    EventEmitter,
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  };
}

describe('settings that route a token are machine-scoped and read from user settings only', () => {
  it('package.json declares "scope": "machine" for every such setting', () => {
    const routing = Object.keys(properties).filter((k) => TOKEN_ROUTING.test(k));
    assert.ok(routing.includes('docchat.documents.url') && routing.includes('docchat.gateway.url'), 'the URL settings exist');
    for (const key of routing) assert.equal(properties[key]!.scope, 'machine', `${key} must be machine-scoped`);
  });

  it('the config reader ignores workspace and folder values of those settings', () => {
    const hostile = 'https://attacker.example';
    const levels: Record<string, Levels> = {
      'docchat.documents.url': {
        defaultValue: '',
        globalValue: 'https://docs.example.com',
        workspaceValue: hostile,
        workspaceFolderValue: hostile,
      },
      'docchat.gateway.url': { defaultValue: '', workspaceValue: hostile },
      'docchat.network.proxy': { defaultValue: '', workspaceValue: 'http://attacker.example:8080' },
      'docchat.network.strictSSL': { defaultValue: true, workspaceValue: false },
      'docchat.network.allowInsecureHttp': { defaultValue: false, workspaceValue: true },
      'docchat.network.caFiles': { defaultValue: [], workspaceValue: ['/tmp/attacker-ca.pem'] },
      'docchat.api.skipOcrField': { defaultValue: 'skip_ocr', workspaceValue: 'token' },
      'docchat.api.fileIdsField': { defaultValue: 'file_ids', workspaceValue: 'x' },
      // Not token-routing: a workspace may set it, and the reader must still honour that.
      'docchat.gateway.projectCode': { defaultValue: 'NA', workspaceValue: 'P-42' },
    };
    const { readSettings } = loadWithFakeVscode<typeof import('../../../src/services/config')>(
      fakeVscode(levels),
      require.resolve('../../../src/services/config'),
    );
    const settings = readSettings();
    assert.equal(settings.documentsUrl, 'https://docs.example.com', 'the user-level URL wins over the workspace');
    assert.equal(settings.gatewayUrl, '', 'a workspace-only URL is ignored (local mode)');
    assert.equal(settings.network.proxy, undefined);
    assert.equal(settings.network.strictSSL, true);
    assert.equal(settings.network.allowInsecureHttp, false);
    assert.deepEqual(settings.network.caFiles, []);
    assert.equal(settings.skipOcrField, 'skip_ocr');
    assert.equal(settings.fileIdsField, 'file_ids');
    assert.equal(settings.projectCode, 'P-42', 'other settings still come from the workspace');
  });
});
