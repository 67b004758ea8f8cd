/**
 * The OpenAI-compatible upstream behind the embedded backend's gateway in the latency benchmark:
 * `instant` answers at once, `delayed` sends its first token after 300 ms, `bulk` streams a
 * 100 KB markdown answer as fast as the socket takes it and notes when its last token left.
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { chatChunk, ScriptServer, sendJson } from '../../support/servers/scriptServer';

export const MODELS = { instant: 'instant-model', delayed: 'delayed-model', bulk: 'bulk-model' } as const;
export const FIRST_TOKEN_DELAY_MS = 300;

/** A short answer as a model writes it: a cited sentence, a list and a code block (~700 chars). */
export const SHORT_ANSWER = [
  'Invoices are kept for **ten years** after the end of the fiscal year [1].',
  '',
  '- Contracts: six years after the employee leaves [1]',
  '- Meeting notes: two years, unless a project still needs them',
  '',
  '```ts',
  'export function retentionYears(kind: string): number {',
  '  return kind === "invoice" ? 10 : 6;',
  '}',
  '```',
  '',
  'The policy applies to paper and electronic records alike; keep the originals where the law asks for them.',
  '',
].join('\n');

export interface Upstream {
  url: string;
  /** Wall-clock time (ms since the epoch, sub-millisecond) the last bulk token was written. */
  lastBulkTokenAt: number;
  close(): Promise<void>;
}

const nowEpoch = () => performance.timeOrigin + performance.now();

function pieces(text: string, count: number): string[] {
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export async function startUpstream(bulkAnswer: string): Promise<Upstream> {
  const server = await ScriptServer.start();
  const state = { lastBulkTokenAt: 0 };
  server.on('GET', '/v1/models', (_req, res) =>
    sendJson(res, 200, {
      object: 'list',
      data: Object.values(MODELS).map((id) => ({ id, object: 'model', created: 1, owned_by: 'bench' })),
    }),
  );
  server.on('POST', '/v1/chat/completions', async (req, res: ServerResponse) => {
    const model = String(req.json?.model ?? '');
    res.on('error', () => undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const send = (content: string) => res.write(`data: ${JSON.stringify({ ...chatChunk(content), model })}\n\n`);
    if (model === MODELS.delayed) await new Promise((resolve) => setTimeout(resolve, FIRST_TOKEN_DELAY_MS));
    if (model === MODELS.bulk) {
      const parts = pieces(bulkAnswer, 1_000);
      for (let i = 0; i < parts.length; i++) {
        if (!send(parts[i]!)) await new Promise((resolve) => res.once('drain', resolve));
        if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
      }
      state.lastBulkTokenAt = nowEpoch();
    } else {
      // The first token alone (what the user waits for), then the rest in one go.
      const parts = pieces(SHORT_ANSWER, 12);
      send(parts[0]!);
      await new Promise((resolve) => setImmediate(resolve));
      for (const part of parts.slice(1)) send(part);
    }
    res.write(`data: ${JSON.stringify(chatChunk(undefined, { finish_reason: 'stop' }))}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  return {
    url: server.url,
    get lastBulkTokenAt() {
      return state.lastBulkTokenAt;
    },
    close: () => server.close(),
  };
}
