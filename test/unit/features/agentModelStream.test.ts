/**
 * DocChat's language model provider (the models other chats and extensions use) hands VS Code each
 * streamed tool call whole: OpenAI-style streams send a call's id and name once, in its first
 * delta, and only argument pieces after; a later delta without an id must not erase the id (the
 * tool result would then answer a call the model never made). Real GatewayClient against a real
 * HTTP server on 127.0.0.1; `vscode` is the only module faked.
 */
import * as assert from 'node:assert/strict';
import path from 'node:path';
import { GatewayClient } from '../../../src/api/gateway/client';
import type * as ChatModelsModule from '../../../src/features/agents/chatModels';
import { useFakeVscode, type FakeVscodeScope, FakeEventEmitter } from '../../support/fakeVscode';
import { ScriptServer, sendChunked, sseBody } from '../../support/servers/scriptServer';
import { MemoryState } from './chat/fixtures';

const SRC = path.resolve(__dirname, '../../../src');
const disposable = { dispose: () => undefined };

class TextPart {
  constructor(readonly value: string) {}
}
class ToolCallPart {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}

function fakeVscode() {
  const EventEmitter = FakeEventEmitter;
  return {
    EventEmitter,
    CancellationError: class CancellationError extends Error {},
    LanguageModelTextPart: TextPart,
    LanguageModelToolCallPart: ToolCallPart,
    LanguageModelToolResultPart: class {},
    LanguageModelChatMessageRole: { User: 1, Assistant: 2 },
    LanguageModelChatToolMode: { Auto: 1, Required: 2 },
    ThemeIcon: class {},
    l10n: { t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)])) },
    env: { language: 'en' },
    window: {},
    commands: {},
    workspace: {},
  };
}

function toolChunk(toolCalls: unknown[], finish: string | null = null) {
  return {
    id: 'c1',
    object: 'chat.completion.chunk',
    model: 'alpha-5-mini',
    choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: finish }],
  };
}

describe('DocChat language model provider: streamed tool calls', () => {
  let server: ScriptServer;
  let gateway: GatewayClient;
  let scope: FakeVscodeScope;
  let provider: ChatModelsModule.DocChatModelProvider;

  before(async () => {
    server = await ScriptServer.start();
    gateway = new GatewayClient({ baseUrl: server.url, token: 'k', rateLimits: false, transport: { maxRetries: 0 } });
  });
  beforeEach(() => {
    server.reset();
    scope = useFakeVscode(fakeVscode());
    const { DocChatModelProvider } = scope.load<typeof ChatModelsModule>(path.join(SRC, 'features/agents/chatModels'));
    const services = {
      connection: { onDidChange: () => disposable, use: async () => undefined, gateway, state: { kind: 'remote', url: server.url } },
      config: { current: { gatewayUrl: server.url } },
      log: { child: () => ({ warn: () => undefined }) },
      errors: { report: () => undefined },
    };
    provider = new DocChatModelProvider(services as never, new MemoryState() as never);
  });
  afterEach(() => {
    provider.dispose();
    scope.dispose();
  });
  after(async () => {
    await gateway.close();
    await server.close();
  });

  async function answer(): Promise<unknown[]> {
    const reported: unknown[] = [];
    const model = { id: 'alpha-5-mini', capabilities: { toolCalling: true } };
    const message = { role: 1, content: [new TextPart('Find the retention policy.')] };
    const options = { tools: [{ name: 'docchat_search', description: 'Search', inputSchema: { type: 'object' } }], toolMode: 1 };
    const token = { isCancellationRequested: false, onCancellationRequested: () => disposable };
    await provider.provideLanguageModelChatResponse(
      model as never,
      [message as never],
      options as never,
      { report: (part: unknown) => reported.push(part) },
      token as never,
    );
    return reported;
  }

  it('keeps the id and name of the first delta when later deltas carry only arguments', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(
        res,
        sseBody([
          toolChunk([{ index: 0, id: 'call_9f2', type: 'function', function: { name: 'docchat_search', arguments: '' } }]),
          toolChunk([{ index: 0, function: { arguments: '{"query":' } }]),
          toolChunk([{ index: 0, id: '', function: { arguments: '"retention"}' } }]),
          toolChunk([{ index: 1, id: 'call_a77', type: 'function', function: { name: 'docchat_read', arguments: '{}' } }]),
          toolChunk([], 'tool_calls'),
        ]),
      ),
    );
    const parts = await answer();
    assert.deepEqual(
      parts.filter((p) => p instanceof ToolCallPart),
      [new ToolCallPart('call_9f2', 'docchat_search', { query: 'retention' }), new ToolCallPart('call_a77', 'docchat_read', {})],
    );
    const sent = server.requests[0]!.json as { tools: unknown[] };
    assert.equal(sent.tools.length, 1, 'the tools were sent');
  });
});
