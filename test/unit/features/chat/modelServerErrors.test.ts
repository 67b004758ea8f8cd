/**
 * Local mode forwarding chat to a model server (as "Use a Language Model…" sets it up): the real
 * embedded backend in front of an OpenAI-compatible stub. A model the server refuses for chat, and
 * a server that stopped, are worded plainly with the ways forward that can work.
 */
import * as assert from 'node:assert/strict';
import { GatewayClient } from '../../../../src/api/gateway/client';
import type { AnswerJob, LocalServices } from '../../../../src/features/chat/answerGenerator';
import type { ChatErrorInfo } from '../../../../src/chatCore/protocol';
import { FileNameCache } from '../../../../src/chatCore/grounding';
import { API_KEY, startTestBackend, type TestBackend } from '../../backend/helpers';
import { ScriptServer, sendJson } from '../../../support/servers/scriptServer';
import { runAnswer } from './runAnswer';

function job(model: string): AnswerJob {
  return { question: 'What is DocChat?', history: [], context: [], model, legacy: false, projectCode: '', maxResults: 5 };
}

async function answerError(gateway: GatewayClient, model: string, local: LocalServices): Promise<ChatErrorInfo> {
  let failure: ChatErrorInfo | undefined;
  await runAnswer(
    job(model),
    { gateway, documents: undefined, fileNames: new FileNameCache(), local },
    {
      status: () => undefined,
      start: () => undefined,
      delta: () => undefined,
      done: (result) => assert.fail(`expected an error, got ${JSON.stringify(result)}`),
      error: (error) => (failure = error),
    },
    new AbortController().signal,
  );
  assert.ok(failure, 'the answer failed');
  return failure;
}

describe('chat answers through Local mode to a model server (embedded backend + stub server)', () => {
  let upstream: ScriptServer;
  let backend: TestBackend;
  let gateway: GatewayClient;
  let local: LocalServices;

  beforeEach(async () => {
    upstream = await ScriptServer.start();
    upstream.on('GET', '/v1/models', (_req, res) =>
      sendJson(res, 200, { object: 'list', data: ['tiny-chat', 'nomic-embed-text', 'whisper-1'].map((id) => ({ id, object: 'model' })) }),
    );
    upstream.on('POST', '/v1/chat/completions', (req, res) => {
      const model = (req.json as { model: string }).model;
      if (model === 'whisper-1') return sendJson(res, 400, { error: { message: '"whisper-1" does not support chat' } });
      if (model === 'e5-large') {
        // vLLM serving an embedding model: the refusal names no model.
        return sendJson(res, 400, {
          object: 'error',
          message: 'The model does not support Chat Completions API',
          type: 'BadRequestError',
          param: null,
          code: 400,
        });
      }
      if (model === 'tiny-chat-long') {
        return sendJson(res, 400, { error: { message: "This model's maximum context length is 2048 tokens (tiny-chat-long)" } });
      }
      return sendJson(res, 404, { error: { message: 'no' } });
    });
    backend = await startTestBackend({ rateLimits: false, upstream: { url: upstream.url } });
    gateway = new GatewayClient({ baseUrl: backend.url, token: API_KEY, rateLimits: false, transport: { maxRetries: 0 } });
    local = { documents: true, gateway: true, modelServer: { url: `${upstream.url}/v1`, name: 'vLLM' } };
  });
  afterEach(async () => {
    await gateway.close();
    await backend.close();
    await upstream.close();
  });

  it('says a model the server refuses for chat cannot answer, with its reason, and offers another model or local-extractive, not Retry', async () => {
    const error = await answerError(gateway, 'whisper-1', local);
    assert.equal(error.message, 'whisper-1 cannot answer chat questions: "whisper-1" does not support chat.');
    assert.deepEqual(error.actions, ['chooseModel', 'useLocalExtractive']);
    assert.deepEqual(error.unavailable, { reason: '"whisper-1" does not support chat' });
  });

  it('also when the refusal says "the model does not support" chat without naming it (vLLM)', async () => {
    const error = await answerError(gateway, 'e5-large', local);
    assert.equal(error.message, 'e5-large cannot answer chat questions: The model does not support Chat Completions API.');
    assert.deepEqual(error.actions, ['chooseModel', 'useLocalExtractive']);
  });

  it('keeps Retry for a refusal about the request (its length), which names no fault of the model', async () => {
    const error = await answerError(gateway, 'tiny-chat-long', local);
    assert.ok(error.actions.includes('retry'), JSON.stringify(error));
    assert.equal(error.unavailable, undefined);
  });

  it('says in plain words that a stopped model server is not running, with Retry and the way back to local-extractive', async () => {
    await upstream.close();
    const error = await answerError(gateway, 'tiny-chat', local);
    assert.equal(error.message, `The model server at ${upstream.url}/v1 (vLLM) is not running or not reachable.`);
    assert.deepEqual(error.actions, ['retry', 'useLocalExtractive', 'showOutput']);
    assert.deepEqual(error.unavailable, { reason: 'server not answering', server: true });
  });
});
