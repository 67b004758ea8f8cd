/**
 * The DocChat Agent Skill VS Code loads (`contributes.chatSkills`) and the agent plugin for Claude
 * Code and GitHub Copilot CLI: the layout the build writes, the plugin "Copy MCP Server
 * Configuration…" completes, and its MCP server definition run as a host runs it (the bundle in
 * dist/, driven by the MCP SDK client). (npm test builds first; alone, run `node esbuild.mjs`.)
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { agentPluginTemplate, CLAUDE_MARKETPLACE, PluginHosts, writeAgentPlugin } from '../../../src/mcp/agentPlugin';
import { McpEnv } from '../../../src/mcp/environment';
import { ToolNames } from '../../../src/mcp/tools';
import { startTestBackend, TOKEN } from '../backend/helpers';

const ROOT = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  contributes: { chatSkills?: Array<{ path: string }> };
};

/** The YAML front matter of a SKILL.md as key → value (the Agent Skills fields are one line each). */
function frontMatter(text: string): Record<string, string> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  assert.ok(match, 'SKILL.md starts with front matter');
  return Object.fromEntries(
    match[1]!
      .split(/\r?\n/)
      .map((line) => /^([\w-]+):\s*(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => [m[1]!, m[2]!]),
  );
}

describe('DocChat Agent Skill and agent plugin', function () {
  this.timeout(120_000);
  const skillFile = path.join(ROOT, 'resources/skills/docchat/SKILL.md');

  it('contributes the skill to VS Code by the path of its SKILL.md, named like its folder, and packages it', () => {
    const skills = manifest.contributes.chatSkills ?? [];
    assert.deepEqual(skills, [{ path: './resources/skills/docchat/SKILL.md' }]);
    const file = path.join(ROOT, skills[0]!.path);
    const fields = frontMatter(readFileSync(file, 'utf8'));
    assert.equal(fields.name, path.basename(path.dirname(file)), 'the name is the folder name, or VS Code skips the skill');
    assert.match(fields.name!, /^[a-z0-9-]{1,64}$/);
    assert.ok(fields.description && fields.description.length >= 100 && fields.description.length <= 1024, fields.description);
    assert.ok(readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split(/\r?\n/).includes('!resources/**'));
  });

  it('tells an agent when to search, how to pick a store, to read before quoting and to cite file names', () => {
    const text = readFileSync(skillFile, 'utf8');
    for (const tool of [ToolNames.listStores, ToolNames.search, ToolNames.readFile]) assert.ok(text.includes(tool), tool);
    assert.match(text, /## When to use it/);
    assert.match(text, /Pick the store/);
    assert.match(text, /Read before quoting/);
    assert.match(text, /Cite file names/);
  });

  it('is built into a plugin in the layouts of Claude Code, Copilot CLI and Open Plugins', async () => {
    const template = agentPluginTemplate(ROOT);
    assert.ok(existsSync(template), 'dist/ is not built: run `node esbuild.mjs` first');
    for (const file of ['.claude-plugin/plugin.json', '.plugin/plugin.json', 'plugin.json']) {
      const json = JSON.parse(await readFile(path.join(template, file), 'utf8')) as Record<string, unknown>;
      assert.equal(json.name, 'docchat', file);
      assert.equal(json.version, manifest.version, file);
    }
    const copilot = JSON.parse(await readFile(path.join(template, 'plugin.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(copilot.skills, 'skills/');
    assert.equal(copilot.mcpServers, '.mcp.json');
    assert.equal(await readFile(path.join(template, 'skills/docchat/SKILL.md'), 'utf8'), readFileSync(skillFile, 'utf8'));
  });

  it('completes the plugin for each host with an MCP server that runs, without the token, and says how to install it', async () => {
    const backend = await startTestBackend();
    const root = await mkdtemp(path.join(os.tmpdir(), 'docchat-plugin-'));
    try {
      const storeId = await backend.createStore('handbook');
      await backend.ingest(storeId, 'holidays.md', '# Holidays\n\nEveryone has 30 days of leave a year.');
      for (const host of PluginHosts) {
        const written = await writeAgentPlugin(agentPluginTemplate(ROOT), root, host, {
          serverScript: path.join(ROOT, 'dist/mcp-server.js'),
          mode: { kind: 'remote', documentsUrl: backend.url },
          allowChanges: false,
        });
        assert.ok(existsSync(path.join(written.pluginDir, 'skills/docchat/SKILL.md')), host);
        const mcpText = await readFile(path.join(written.pluginDir, '.mcp.json'), 'utf8');
        assert.ok(!mcpText.includes(TOKEN), `${host}: the token is not in .mcp.json`);
        const server = (
          JSON.parse(mcpText) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }
        ).mcpServers.docchat!;
        assert.equal(server.env[McpEnv.documentsToken], `\${${McpEnv.documentsToken}}`, host);
        if (host === 'claudeCode') {
          const marketplace = JSON.parse(
            await readFile(path.join(path.dirname(written.pluginDir), '.claude-plugin/marketplace.json'), 'utf8'),
          ) as { name: string; plugins: Array<{ name: string; source: string }> };
          assert.equal(marketplace.name, CLAUDE_MARKETPLACE);
          assert.ok(
            existsSync(path.resolve(path.dirname(written.pluginDir), marketplace.plugins[0]!.source, '.claude-plugin/plugin.json')),
          );
          assert.deepEqual(written.installCommands, [
            `/plugin marketplace add "${path.dirname(written.pluginDir)}"`,
            `/plugin install docchat@${CLAUDE_MARKETPLACE}`,
          ]);
        } else {
          assert.deepEqual(written.installCommands, [`copilot plugin install "${written.pluginDir}"`]);
        }
        // Run the definition as the host does, with the token the host takes from its environment.
        const env = Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, v === `\${${McpEnv.documentsToken}}` ? TOKEN : v]));
        const inherited = Object.fromEntries(
          Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('DOCCHAT_')),
        ) as Record<string, string>;
        const client = new Client({ name: host, version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({ command: server.command, args: server.args, env: { ...inherited, ...env }, stderr: 'ignore' }),
        );
        try {
          const result = (await client.callTool({
            name: ToolNames.search,
            arguments: { store: 'handbook', query: 'days of leave' },
          })) as CallToolResult;
          assert.ok(!result.isError, JSON.stringify(result));
          assert.match(JSON.stringify(result.content), /holidays\.md/);
        } finally {
          await client.close();
        }
      }
    } finally {
      await rm(root, { recursive: true, force: true });
      await backend.close();
    }
  });
});
