/** The configuration "Copy MCP Server Configuration…" gives each agent host: runnable, and without a secret. */
import * as assert from 'node:assert/strict';
import { McpEnv, readMcpConfig } from '../../../src/mcp/environment';
import { AgentHosts, hostConfiguration } from '../../../src/mcp/hostConfig';

const SCRIPT = '/home/user/.vscode/extensions/docchat.docchat-0.1.0/dist/mcp-server.js';

function serverOf(json: Record<string, unknown>): { command: string; args: string[]; env: Record<string, string> } {
  const servers = (json.mcpServers ?? json.servers) as Record<string, { command: string; args: string[]; env: Record<string, string> }>;
  return servers.docchat!;
}

describe('MCP host configuration', () => {
  it('runs the installed bundle with node and names the token variable, never a token, in Remote mode', () => {
    for (const host of AgentHosts) {
      const json = hostConfiguration(host, {
        serverScript: SCRIPT,
        mode: { kind: 'remote', documentsUrl: 'https://docs.example' },
        allowChanges: false,
      });
      const server = serverOf(json);
      assert.equal(server.command, 'node', host);
      assert.deepEqual(server.args, [SCRIPT], host);
      assert.equal(server.env[McpEnv.documentsUrl], 'https://docs.example', host);
      // A reference the host expands from its environment (or VS Code's secret input), not a value.
      assert.match(server.env[McpEnv.documentsToken]!, /^\$\{(env:|input:)?[\w-]+\}$/, host);
      assert.equal(server.env[McpEnv.allowChanges], undefined, host);
    }
  });

  it('uses each host’s own shape', () => {
    const input = { serverScript: SCRIPT, mode: { kind: 'remote' as const, documentsUrl: 'https://docs.example' }, allowChanges: false };
    assert.equal(serverOf(hostConfiguration('cursor', input)).env[McpEnv.documentsToken], '${env:DOCCHAT_DOCUMENTS_TOKEN}');
    assert.equal(serverOf(hostConfiguration('claudeCode', input)).env[McpEnv.documentsToken], '${DOCCHAT_DOCUMENTS_TOKEN}');
    assert.equal((hostConfiguration('copilotCli', input).mcpServers as Record<string, { type: string }>).docchat!.type, 'local');
    const vscode = hostConfiguration('vscode', input) as { inputs: Array<{ id: string; password: boolean }>; servers: unknown };
    assert.equal(vscode.inputs[0]!.password, true);
    assert.equal(serverOf(vscode).env[McpEnv.documentsToken], `\${input:${vscode.inputs[0]!.id}}`);
  });

  it('points Local mode at the storage folder, which the server accepts', () => {
    const json = hostConfiguration('claudeCode', {
      serverScript: SCRIPT,
      mode: { kind: 'local', storageDir: '/home/user/.config/Code/User/globalStorage/docchat.docchat' },
      allowChanges: true,
    });
    const env = serverOf(json).env;
    assert.deepEqual(readMcpConfig(env), {
      target: { kind: 'local', storageDir: '/home/user/.config/Code/User/globalStorage/docchat.docchat' },
      allowChanges: true,
      fileIdsField: undefined,
      l10nBundle: undefined,
      maxWaitMs: 15_000,
    });
    assert.equal(env[McpEnv.documentsToken], undefined);
  });

  it('refuses a URL without a token and a relative storage folder, naming the variable', () => {
    assert.match(String(readMcpConfig({ [McpEnv.documentsUrl]: 'https://docs.example' })), new RegExp(McpEnv.documentsToken));
    assert.match(String(readMcpConfig({ [McpEnv.storageDir]: 'relative/dir' })), /absolute/);
  });
});
