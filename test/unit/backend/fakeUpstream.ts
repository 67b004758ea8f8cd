/**
 * A small OpenAI-compatible server for the upstream tests: /v1/models, /v1/chat/completions
 * (JSON or SSE, with or without a usage chunk), /v1/embeddings with deterministic vectors, the
 * gateway's web tools when `webTools` is set, and records every request it gets.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUpstream {
  url: string;
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: unknown }[];
  /** Status to answer every request with (e.g. 401), undefined for normal behaviour. */
  failWith?: number;
  /** Omit the usage chunk from streams (like servers that ignore stream_options). */
  omitUsage?: boolean;
  /** When set, a streamed chat completion answers 200 with exactly this SSE body. */
  streamBody?: string;
  /** Answer /v1/tools/web/search and /v1/tools/web/research (a gateway that has them). */
  webTools?: boolean;
  close(): Promise<void>;
}

/** Two axes: texts about "cats" or "felines" point one way, everything else the other. */
export function fakeVector(text: string): number[] {
  return /cat|feline|kitten/i.test(text) ? [1, 0, 0] : [0, 1, 0];
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const fake: FakeUpstream = { url: '', requests: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      fake.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (fake.failWith) return json(fake.failWith, { error: { message: `fake failure ${fake.failWith}`, type: 'x' } });
      if (req.method === 'GET' && req.url === '/v1/models') {
        return json(200, {
          object: 'list',
          data: [
            { id: 'llama3', object: 'model', created: 1, owned_by: 'fake' },
            { id: 'nomic-embed-text', object: 'model', created: 2, owned_by: 'fake' },
          ],
        });
      }
      // `/v1/embed` is the company gateway's name for the same endpoint.
      if (req.method === 'POST' && (req.url === '/v1/embeddings' || req.url === '/v1/embed')) {
        const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
        return json(200, {
          object: 'list',
          model: body.model,
          data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text) })),
          usage: { prompt_tokens: 3, total_tokens: 3 },
        });
      }
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        if (body.model !== 'llama3') return json(404, { error: { message: `model "${body.model}" not found`, param: 'model' } });
        const content = `upstream says: ${body.messages.at(-1).content}`;
        if (!body.stream) {
          return json(200, {
            id: 'chatcmpl-up',
            object: 'chat.completion',
            created: 5,
            model: 'llama3',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 },
          });
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (fake.streamBody !== undefined) return void res.end(fake.streamBody);
        const chunk = (delta: object, finish: string | null) => ({
          id: 'chatcmpl-up',
          object: 'chat.completion.chunk',
          created: 5,
          model: 'llama3',
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
        res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: '' }, null))}\n\n`);
        for (const word of content.split(/(?<= )/)) res.write(`data: ${JSON.stringify(chunk({ content: word }, null))}\n\n`);
        res.write(`data: ${JSON.stringify(chunk({}, 'stop'))}\n\n`);
        if (!fake.omitUsage) {
          res.write(
            `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 5, model: 'llama3', choices: [], usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 } })}\n\n`,
          );
        }
        res.end('data: [DONE]\n\n');
        return;
      }
      if (fake.webTools && req.method === 'POST' && req.url === '/v1/tools/web/search') {
        return json(200, { results: [{ title: `About ${body.query}`, url: 'https://example.test/a', snippet: 'from upstream' }] });
      }
      if (fake.webTools && req.method === 'POST' && req.url === '/v1/tools/web/research') {
        return json(202, { id: 'research-up-1', status: 'in_progress', query: body.query });
      }
      if (fake.webTools && req.method === 'GET' && req.url?.startsWith('/v1/tools/web/research/')) {
        const id = decodeURIComponent(req.url.slice('/v1/tools/web/research/'.length));
        return json(200, { id, status: 'completed', report: `report for ${id}` });
      }
      json(404, { error: { message: 'no such route' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
