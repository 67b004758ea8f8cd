import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { GatewayClient } from '../../../../src/api/gateway/client';
import { writeDiscovery } from '../../../../src/common/discoveryFile';
import { DocChatModelProvider } from '../../../../src/features/agents/chatModels';
import { DocChatMcpServerProvider } from '../../../../src/features/agents/mcpServer';
import { McpEnv } from '../../../../src/mcp/environment';
import type { ConnectionService, ConnectionState } from '../../../../src/services/connection';
import type { LocalBackend } from '../../../../src/services/localBackend';
import type { SecretsService } from '../../../../src/services/secrets';
import { EXTENSION_ID, eventually, servicesFor, startBackend, type TestBackend, type TestServices } from '../documents/fixtures';

// The MCP server definition provider and the language model chat provider in a real VS Code
// extension host: the real vscode classes, VS Code's own lm API, the built dist/mcp-server.js.

const GATEWAY_KEY = 'agents-gateway-key-4e7a';
const TOKEN = 'exthost-token-93ac'; // the fixtures' backend token

interface ScriptedGateway {
  url: string;
  bodies: Array<Record<string, any>>;
  close(): Promise<void>;
}

/** A gateway that asks for a tool first, answers once it has the tool's result, and refuses a wrong key. */
async function startScriptedGateway(): Promise<ScriptedGateway> {
  const bodies: Array<Record<string, any>> = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.headers['api-key'] !== GATEWAY_KEY) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Invalid API key.' } }));
        return;
      }
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ id: 'beta-sonnet-4-5', capabilities: { tool_calling: true } }, { id: 'alpha-4o' }] }));
        return;
      }
      const body = JSON.parse(raw);
      bodies.push(body);
      const chunk = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (body.messages.some((m: { role: string }) => m.role === 'tool')) {
        res.write(chunk({ role: 'assistant', content: 'The cache holds ' }));
        res.write(chunk({ content: '42 entries.' }, 'stop'));
      } else {
        res.write(
          chunk({
            tool_calls: [{ index: 0, id: 'call_7', type: 'function', function: { name: 'docchat_search', arguments: '{"query":' } }],
          }),
        );
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '"cache size"}' } }] }, 'tool_calls'));
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function withConnection(base: TestServices, connection: Record<string, unknown>, extra: Partial<TestServices> = {}): TestServices {
  return { ...base, ...extra, connection: { ...base.connection, used: true, ...connection } as unknown as ConnectionService };
}

async function respond(
  provider: DocChatModelProvider,
  model: vscode.LanguageModelChatInformation,
  messages: vscode.LanguageModelChatRequestMessage[],
  tools?: vscode.LanguageModelChatTool[],
) {
  const parts: vscode.LanguageModelResponsePart[] = [];
  await provider.provideLanguageModelChatResponse(
    model,
    messages,
    { tools, toolMode: vscode.LanguageModelChatToolMode.Auto },
    { report: (part: vscode.LanguageModelResponsePart) => void parts.push(part) },
    new vscode.CancellationTokenSource().token,
  );
  return parts;
}

/** Every file under `dir` whose content includes `secret`, except `allowed`. */
function filesHolding(dir: string, secret: string, allowed: string[] = []): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of entries) {
      const full = path.join(folder, name);
      let stat;
      try {
        stat = statSync(full);
      } catch {
        continue;
      }
      if (stat.isDirectory()) walk(full);
      else if (stat.isFile() && stat.size < 20_000_000 && !allowed.includes(full) && readFileSync(full).includes(secret)) found.push(full);
    }
  };
  walk(dir);
  return found;
}

/** The profile folder of this VS Code (the one holding `User/`), found from the runner's global storage. */
function userDataDir(): string {
  const start = process.env.DOCCHAT_EXTHOST_GLOBAL_STORAGE;
  assert.ok(start, 'the runner names its global storage folder');
  for (let dir = start; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (path.basename(dir) === 'User') return path.dirname(dir);
  }
  throw new Error(`No profile folder above ${start}`);
}

/** An MCP client connected to the server VS Code would start from this resolved definition. */
async function connectMcpClient(resolved: vscode.McpStdioServerDefinition): Promise<Client> {
  const transport = new StdioClientTransport({
    command: resolved.command,
    args: resolved.args,
    env: { ...(process.env as Record<string, string>), ...(resolved.env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'exthost-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('Agents: the models in VS Code and the MCP server definition', function () {
  this.timeout(120_000);
  let channel: vscode.LogOutputChannel;
  let base: TestServices;
  let backend: TestBackend;
  /** The discovery file's entry naming the test backend (what a running local backend writes). */
  const backendDiscovery = (version = '0.0.0') => ({
    url: backend.url,
    pid: process.pid,
    version,
    token: TOKEN,
    upstream: null,
    startedAt: '',
  });
  let gatewayServer: ScriptedGateway;
  const memento = new Map<string, unknown>();
  const state: vscode.Memento = {
    keys: () => [...memento.keys()],
    get: <T>(key: string, fallback?: T) => (memento.has(key) ? memento.get(key) : fallback) as T,
    update: async (key: string, value: unknown) => void memento.set(key, value),
  } as vscode.Memento;

  before(async () => {
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    channel = vscode.window.createOutputChannel('DocChat agents tests', { log: true });
    backend = await startBackend();
    base = servicesFor(backend.client, channel);
    gatewayServer = await startScriptedGateway();
  });

  after(async () => {
    base?.dispose();
    channel?.dispose();
    await backend?.stop();
    await gatewayServer?.close();
  });

  it("lists DocChat's models to any extension through vscode.lm.selectChatModels({ vendor: 'docchat' })", async () => {
    const api = (await vscode.extensions.getExtension(EXTENSION_ID)!.activate()) as { whenReady(): Promise<void> };
    await api.whenReady(); // Local mode: the local backend lists its own model
    const models = await eventually(async () => {
      const found = await vscode.lm.selectChatModels({ vendor: 'docchat' });
      return found.length ? found : undefined;
    }, 'the docchat models');
    assert.ok(
      models.some((m) => m.id === 'local-extractive' && m.vendor === 'docchat'),
      models.map((m) => m.id).join(', '),
    );
  });

  it('streams an answer from the gateway, with a tool call round trip', async () => {
    const gateway = new GatewayClient({ baseUrl: gatewayServer.url, token: GATEWAY_KEY, rateLimits: false });
    const state0: ConnectionState = { kind: 'remote', url: gatewayServer.url, host: '127.0.0.1' };
    const services = withConnection(base, { gateway, state: state0, use: async () => undefined });
    const provider = new DocChatModelProvider(services, state);
    try {
      const models = await provider.provideLanguageModelChatInformation({ silent: false }, new vscode.CancellationTokenSource().token);
      // alpha-4o is a deprecated inference model: not offered to agents.
      assert.deepEqual(
        models.map((m) => [m.id, m.capabilities.toolCalling]),
        [['beta-sonnet-4-5', true]],
      );
      const model = models[0]!;
      const tools = [{ name: 'docchat_search', description: 'Search the documents', inputSchema: { type: 'object' } }];
      const question = vscode.LanguageModelChatMessage.User('How many entries does the cache hold?');
      const first = await respond(provider, model, [question], tools);
      const call = first.find((p): p is vscode.LanguageModelToolCallPart => p instanceof vscode.LanguageModelToolCallPart);
      assert.ok(call, 'the model asked for a tool');
      assert.equal(call.name, 'docchat_search');
      assert.equal(call.callId, 'call_7');
      assert.deepEqual(call.input, { query: 'cache size' });
      assert.equal(gatewayServer.bodies[0]!.tools[0].function.name, 'docchat_search');

      const second = await respond(
        provider,
        model,
        [
          question,
          vscode.LanguageModelChatMessage.Assistant([call]),
          vscode.LanguageModelChatMessage.User([
            new vscode.LanguageModelToolResultPart('call_7', [new vscode.LanguageModelTextPart('42 entries per shard')]),
          ]),
        ],
        tools,
      );
      const text = second.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
      assert.equal(text, 'The cache holds 42 entries.');
      const sent = gatewayServer.bodies[1]!.messages as Array<Record<string, any>>;
      assert.equal(sent[1]!.tool_calls[0].id, 'call_7');
      assert.deepEqual(sent[2], { role: 'tool', tool_call_id: 'call_7', content: '42 entries per shard' });
      assert.equal(await provider.provideTokenCount(model, 'abcdefgh'), 2);
    } finally {
      provider.dispose();
      await gateway.close();
    }
  });

  it('answers a rejected API key with the Set API Key sentence', async () => {
    const gateway = new GatewayClient({ baseUrl: gatewayServer.url, token: 'wrong-key', rateLimits: false });
    const services = withConnection(base, {
      gateway,
      state: { kind: 'remote', url: gatewayServer.url, host: '127.0.0.1' },
      use: async () => undefined,
    });
    const provider = new DocChatModelProvider(services, state);
    try {
      const model = {
        id: 'beta-sonnet-4-5',
        name: 'beta-sonnet-4-5',
        family: 'beta-sonnet-4-5',
        version: '1',
        maxInputTokens: 1000,
        maxOutputTokens: 100,
        capabilities: {},
      };
      await assert.rejects(respond(provider, model, [vscode.LanguageModelChatMessage.User('Hi')]), (error: Error) => {
        assert.match(error.message, /rejected the credentials/);
        assert.match(error.message, /DocChat: Set Gateway API Key/);
        assert.ok(!error.message.includes('wrong-key'));
        return true;
      });
    } finally {
      provider.dispose();
      await gateway.close();
    }
  });

  it('resolves the MCP server before DocChat is used without connecting: in Local mode the server joins the backend at its first tool call', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const storage = mkdtempSync(path.join(os.tmpdir(), 'docchat-mcp-unused-'));
    const discoveryFile = path.join(storage, 'backend.json');
    let uses = 0;
    const services = withConnection(
      base,
      { state: { kind: 'idle' } satisfies ConnectionState, used: false, use: async () => void uses++ },
      {
        config: {
          current: { ...base.config.current, documentsUrl: '' },
          onDidChange: base.config.onDidChange,
        } as unknown as TestServices['config'],
        localBackend: { discoveryFile, storageDir: storage } as unknown as LocalBackend,
      },
    );
    const context = { extensionPath: extension.extensionPath, extension } as unknown as vscode.ExtensionContext;
    const provider = new DocChatMcpServerProvider(context, services);
    let client: Client | undefined;
    try {
      const [listed] = provider.provideMcpServerDefinitions();
      assert.ok(listed);
      const resolved = await provider.resolveMcpServerDefinition(listed);
      assert.equal(uses, 0, 'resolving the MCP server connected DocChat');
      assert.equal(resolved.env[McpEnv.storageDir], storage);
      assert.equal(resolved.env[McpEnv.documentsUrl], undefined);
      assert.equal(resolved.env[McpEnv.documentsToken], undefined);
      client = await connectMcpClient(resolved);
      const tools = await client.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === 'docchat_list_stores'));
      // Listing the tools (what VS Code does at startup) started and joined nothing.
      assert.equal(statSync(discoveryFile, { throwIfNoEntry: false }), undefined, 'a backend was started to list the tools');
      // The first tool call joins the backend named by the discovery file.
      await writeDiscovery(discoveryFile, backendDiscovery(String(extension.packageJSON.version)));
      const result = (await client.callTool({ name: 'docchat_list_stores', arguments: {} })) as {
        isError?: boolean;
        structuredContent?: unknown;
      };
      assert.ok(!result.isError, JSON.stringify(result));
      assert.ok(Array.isArray((result.structuredContent as { stores: unknown[] }).stores));
    } finally {
      await client?.close();
      provider.dispose();
      rmSync(storage, { recursive: true, force: true });
    }
  });

  it('resolves the MCP server once the connection DocChat is making is up', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const storage = mkdtempSync(path.join(os.tmpdir(), 'docchat-mcp-starting-'));
    const discoveryFile = path.join(storage, 'backend.json');
    await writeDiscovery(discoveryFile, backendDiscovery());
    const services: TestServices = withConnection(
      base,
      {
        // Used, and still connecting: the local backend is up only when the first use resolves.
        state: { kind: 'starting' } satisfies ConnectionState,
        use: async () => {
          await new Promise((resolve) => setImmediate(resolve));
          (services.connection as unknown as { state: ConnectionState }).state = { kind: 'local', url: backend.url };
        },
      },
      { localBackend: { discoveryFile, storageDir: storage } as unknown as LocalBackend },
    );
    const context = { extensionPath: extension.extensionPath, extension } as unknown as vscode.ExtensionContext;
    const provider = new DocChatMcpServerProvider(context, services);
    try {
      const [listed] = provider.provideMcpServerDefinitions();
      const resolved = await provider.resolveMcpServerDefinition(listed!);
      assert.equal(resolved.env[McpEnv.documentsUrl], backend.url);
      assert.equal(resolved.env[McpEnv.documentsToken], TOKEN);
    } finally {
      provider.dispose();
      rmSync(storage, { recursive: true, force: true });
    }
  });

  for (const mode of ['remote', 'local'] as const) {
    it(`resolves the MCP server with working credentials in ${mode === 'remote' ? 'Remote' : 'Local'} mode, leaving no secret in a file`, async () => {
      const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
      const storage = mkdtempSync(path.join(os.tmpdir(), 'docchat-mcp-exthost-'));
      const discoveryFile = path.join(storage, 'backend.json');
      await writeDiscovery(discoveryFile, backendDiscovery());
      const connectionState: ConnectionState =
        mode === 'remote' ? { kind: 'remote', url: backend.url, host: '127.0.0.1' } : { kind: 'local', url: backend.url };
      const services = withConnection(
        base,
        { state: connectionState, use: async () => undefined },
        {
          secrets: { get: async () => TOKEN } as unknown as SecretsService,
          localBackend: { discoveryFile, storageDir: storage } as unknown as LocalBackend,
        },
      );
      const context = { extensionPath: extension.extensionPath, extension } as unknown as vscode.ExtensionContext;
      const provider = new DocChatMcpServerProvider(context, services);
      let client: Client | undefined;
      try {
        const [listed] = provider.provideMcpServerDefinitions();
        assert.ok(listed);
        assert.ok(!JSON.stringify(listed.env).includes(TOKEN), 'the listed definition holds no credential');
        const resolved = await provider.resolveMcpServerDefinition(listed);
        assert.equal(resolved.env[McpEnv.documentsToken], TOKEN);
        assert.equal(resolved.env[McpEnv.documentsUrl], backend.url);
        client = await connectMcpClient(resolved);
        const result = (await client.callTool({ name: 'docchat_list_stores', arguments: {} })) as {
          isError?: boolean;
          structuredContent?: unknown;
        };
        assert.ok(!result.isError, JSON.stringify(result));
        assert.ok(Array.isArray((result.structuredContent as { stores: unknown[] }).stores));
        const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
        const holding = [
          ...filesHolding(userDataDir(), TOKEN),
          ...(workspace ? filesHolding(workspace, TOKEN) : []),
          ...filesHolding(storage, TOKEN, [discoveryFile]),
        ];
        assert.deepEqual(holding, [], 'files holding the token');
      } finally {
        await client?.close();
        provider.dispose();
        rmSync(storage, { recursive: true, force: true });
      }
    });
  }
});
