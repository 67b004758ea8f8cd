/**
 * A local OpenAI-style SSE server: every POST gets the same completion of `chunks` chunks (a first
 * one with the role, content chunks, a finish chunk, a usage chunk, `[DONE]`). Events are written
 * in small batches with a turn of the event loop between them, so they reach the client as many
 * network reads rather than one buffer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const EVENTS_PER_WRITE = 20;

function event(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

export function completionEvents(chunks: number): { events: string[]; content: string } {
  const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_763_000_000, model: 'bench-model' };
  const events = [event({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })];
  let content = '';
  for (let i = 0; i < chunks; i++) {
    const piece = i % 17 === 0 ? `\n\nParagraph ${i}: ` : `token${i % 97} `;
    content += piece;
    events.push(event({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] }));
  }
  events.push(event({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  events.push(event({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: chunks, total_tokens: chunks + 12 } }));
  events.push('data: [DONE]\n\n');
  return { events, content };
}

export async function startSseServer(chunks: number): Promise<{ url: string; content: string; bytes: number; close(): Promise<void> }> {
  const { events, content } = completionEvents(chunks);
  const batches: string[] = [];
  for (let i = 1; i < events.length; i += EVENTS_PER_WRITE) batches.push(events.slice(i, i + EVENTS_PER_WRITE).join(''));
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_bench' });
      res.write(events[0]);
      let next = 0;
      const pump = () => {
        while (next < batches.length) {
          const ok = res.write(batches[next++]);
          if (!ok) return void res.once('drain', () => setImmediate(pump));
          if (next % 5 === 0) return void setImmediate(pump);
        }
        res.end();
      };
      setImmediate(pump);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    content,
    bytes: events.reduce((sum, e) => sum + Buffer.byteLength(e), 0),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
