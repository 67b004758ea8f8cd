/**
 * The MCP server's configuration from its environment (readMcpConfig): what each variable turns
 * into, trimmed, and the sentence that names the variable to set when one is missing or wrong.
 * The change switch's values are in test/unit/reliability/namedBreaks.test.ts.
 */
import * as assert from 'node:assert/strict';
import { DEFAULT_MAX_WAIT_MS, McpEnv, readMcpConfig } from '../../../src/mcp/environment';

const config = (env: Record<string, string | undefined>) => {
  const result = readMcpConfig(env);
  assert.equal(typeof result, 'object', String(result));
  return result as Exclude<typeof result, string>;
};

describe('MCP server configuration from the environment', () => {
  it('Remote mode: the URL and token, trimmed', () => {
    assert.deepEqual(config({ [McpEnv.documentsUrl]: ' https://docs.example \n', [McpEnv.documentsToken]: ' tok-1 ' }).target, {
      kind: 'remote',
      url: 'https://docs.example',
      token: 'tok-1',
    });
  });

  it('Remote mode without a token (or a blank one) names the variable to set', () => {
    for (const token of [undefined, '', '   ']) {
      assert.equal(
        readMcpConfig({ [McpEnv.documentsUrl]: 'https://docs.example', [McpEnv.documentsToken]: token }),
        `${McpEnv.documentsUrl} is set but ${McpEnv.documentsToken} is not: set the documents service's token in the environment of the MCP server.`,
      );
    }
  });

  it('Local mode: the storage folder, trimmed, and only an absolute one', () => {
    assert.deepEqual(config({ [McpEnv.storageDir]: ' /var/docchat ' }).target, { kind: 'local', storageDir: '/var/docchat' });
    assert.equal(
      readMcpConfig({ [McpEnv.storageDir]: 'relative/dir' }),
      `${McpEnv.storageDir} must be an absolute folder (the DocChat extension's global storage folder); it is "relative/dir".`,
    );
    assert.deepEqual(config({ [McpEnv.documentsUrl]: '  ', [McpEnv.storageDir]: '/s' }).target.kind, 'local', 'a blank URL is no URL');
  });

  it('neither mode: a sentence naming every variable', () => {
    for (const env of [{}, { [McpEnv.documentsUrl]: ' ', [McpEnv.storageDir]: ' ' }]) {
      const sentence = readMcpConfig(env);
      assert.equal(typeof sentence, 'string');
      for (const name of [McpEnv.documentsUrl, McpEnv.documentsToken, McpEnv.storageDir]) {
        assert.ok((sentence as string).includes(name), name);
      }
      assert.match(sentence as string, /DocChat: Copy MCP Server Configuration/);
    }
  });

  it('the translations bundle, trimmed; unset when blank', () => {
    const local = { [McpEnv.storageDir]: '/s' };
    assert.equal(config({ ...local, [McpEnv.l10nBundle]: ' /l10n/bundle.l10n.de.json ' }).l10nBundle, '/l10n/bundle.l10n.de.json');
    assert.equal(config({ ...local, [McpEnv.l10nBundle]: '  ' }).l10nBundle, undefined);
    assert.equal(config(local).l10nBundle, undefined);
  });

  it('the longest wait: a number of 0 or more, else the default', () => {
    const local = { [McpEnv.storageDir]: '/s' };
    const wait = (value: string | undefined) => config({ ...local, [McpEnv.maxWaitMs]: value }).maxWaitMs;
    assert.equal(wait('5000'), 5000);
    assert.equal(wait(' 250 '), 250);
    assert.equal(wait('0'), 0);
    for (const value of [undefined, '', '  ', '-1', 'soon', 'Infinity', 'NaN']) {
      assert.equal(wait(value), DEFAULT_MAX_WAIT_MS, String(value));
    }
  });
});
