/** Tool calling through the gateway's chat completions (OpenAI's format), against a real HTTP server. */
import * as assert from 'node:assert/strict';
import type { GatewayClient } from '../../../../src/api/gateway/client';
import type { ChatStreamPart } from '../../../../src/api/gateway/schemas';
import { ScriptServer, sendChunked, sendJson, sseBody } from '../../../support/servers/scriptServer';
import { gatewayClient } from '../helpers';

const tools = [{ type: 'function', function: { name: 'docchat_search', description: 'Search', parameters: { type: 'object' } } }];

function toolChunk(toolCalls: unknown[], finish: string | null = null) {
  return {
    id: 'c1',
    object: 'chat.completion.chunk',
    model: 'alpha-5-mini',
    choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: finish }],
  };
}

async function collect(stream: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('GatewayClient tool calls', () => {
  let server: ScriptServer;
  let client: GatewayClient;
  before(async () => (server = await ScriptServer.start()));
  beforeEach(() => {
    server.reset();
    client = gatewayClient(server.url);
  });
  afterEach(() => client.close());
  after(() => server.close());

  it('sends tools, tool_choice and tool messages, and streams the tool call pieces', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(
        res,
        sseBody([
          toolChunk([{ index: 0, id: 'call_1', type: 'function', function: { name: 'docchat_search', arguments: '' } }]),
          toolChunk([{ index: 0, function: { arguments: '{"query":' } }]),
          toolChunk([{ index: 0, function: { arguments: '"cache"}' } }], 'tool_calls'),
        ]),
      ),
    );
    const messages = [
      { role: 'user', content: 'What does the cache hold?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'docchat_search', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'no results' },
    ];
    const parts = await collect(client.streamChatCompletion({ model: 'alpha-5-mini', messages, tools, tool_choice: 'required' }));
    const sent = server.requests[0]!.json;
    assert.deepEqual(sent.tools, tools);
    assert.equal(sent.tool_choice, 'required');
    assert.deepEqual(sent.messages[1].tool_calls[0].id, 'call_0');
    assert.equal(sent.messages[2].tool_call_id, 'call_0');
    const deltas = parts.flatMap((p) => p.toolCalls ?? []);
    assert.deepEqual(deltas[0], { index: 0, id: 'call_1', name: 'docchat_search', arguments: '' });
    assert.equal(deltas.map((d) => d.arguments ?? '').join(''), '{"query":"cache"}');
    assert.equal(parts.at(-1)!.finishReason, 'tool_calls');
  });

  it('reads the tool calls of an answer sent in one piece', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendJson(res, 200, {
        id: 'c2',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'lookup', arguments: { q: 1 } } }],
            },
          },
        ],
      }),
    );
    const parts = await collect(client.streamChatCompletion({ model: 'alpha-5-mini', messages: [{ role: 'user', content: 'x' }], tools }));
    assert.deepEqual(parts[0]!.toolCalls, [{ index: 0, id: 'call_9', name: 'lookup', arguments: '{"q":1}' }]);
  });

  it('refuses a tool without a name before sending', async () => {
    await assert.rejects(
      collect(
        client.streamChatCompletion({
          model: 'alpha-5-mini',
          messages: [{ role: 'user', content: 'x' }],
          tools: [{ type: 'function', function: { name: '' } }],
        }),
      ),
      /name/,
    );
    assert.equal(server.requests.length, 0);
  });
});
