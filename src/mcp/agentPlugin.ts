/**
 * DocChat as an agent plugin for Claude Code and GitHub Copilot CLI: the plugin the build writes
 * (dist/agent-plugin/docchat: manifests and the DocChat Agent Skill) completed with the MCP server
 * definition of the user's setup (`.mcp.json`, naming the token's environment variable, never the
 * token), and the commands that install it. No `vscode` import.
 */
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type HostConfigInput, hostConfiguration } from './hostConfig';

export const AGENT_PLUGIN_NAME = 'docchat';
/** The local marketplace Claude Code installs the plugin from. */
export const CLAUDE_MARKETPLACE = 'docchat-local';

export const PluginHosts = ['claudeCode', 'copilotCli'] as const;
export type PluginHost = (typeof PluginHosts)[number];

/** The plugin the build writes, in the installed extension. */
export function agentPluginTemplate(extensionPath: string): string {
  return path.join(extensionPath, 'dist', 'agent-plugin', AGENT_PLUGIN_NAME);
}

export interface WrittenPlugin {
  /** The plugin's folder. */
  pluginDir: string;
  /** What the user runs in the host to install it, one command a line. */
  installCommands: string[];
}

/**
 * Writes the plugin for `host` under `root` (a folder of DocChat's own, replaced each time): the
 * template, its `.mcp.json`, and for Claude Code the marketplace that lists it.
 */
export async function writeAgentPlugin(template: string, root: string, host: PluginHost, input: HostConfigInput): Promise<WrittenPlugin> {
  const hostRoot = path.join(root, host === 'claudeCode' ? 'claude-code' : 'copilot-cli');
  const pluginDir = path.join(hostRoot, AGENT_PLUGIN_NAME);
  await rm(hostRoot, { recursive: true, force: true });
  await mkdir(hostRoot, { recursive: true });
  await cp(template, pluginDir, { recursive: true });
  await writeFile(path.join(pluginDir, '.mcp.json'), `${JSON.stringify(hostConfiguration(host, input), null, 2)}\n`);
  if (host === 'copilotCli') return { pluginDir, installCommands: [`copilot plugin install "${pluginDir}"`] };
  const marketplace = {
    name: CLAUDE_MARKETPLACE,
    owner: { name: 'DocChat' },
    plugins: [
      {
        name: AGENT_PLUGIN_NAME,
        source: `./${AGENT_PLUGIN_NAME}`,
        description: "Answer from the company's documents in DocChat vector stores: search them, read them and cite them.",
      },
    ],
  };
  await mkdir(path.join(hostRoot, '.claude-plugin'), { recursive: true });
  await writeFile(path.join(hostRoot, '.claude-plugin', 'marketplace.json'), `${JSON.stringify(marketplace, null, 2)}\n`);
  return {
    pluginDir,
    installCommands: [`/plugin marketplace add "${hostRoot}"`, `/plugin install ${AGENT_PLUGIN_NAME}@${CLAUDE_MARKETPLACE}`],
  };
}
