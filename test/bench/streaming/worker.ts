/**
 * One contender of the streaming benchmark, alone in its process so its memory is its own:
 * `node streamWorker.js <contender> <url> <warmups> <runs>` prints
 * `{coldTtftMs, coldTotalMs, ttftMs[], totalMs[], baseRss, peakRss, contentLength}` as one JSON line.
 */
import { createParser } from 'eventsource-parser';
import OpenAI from 'openai';
import { request } from 'undici';
import { GatewayClient } from '../../../src/api/gateway/client';
import { nowMs } from '../lib/stats';

const IDLE_BEFORE_FIRST_REQUEST_MS = 100;

type Consume = (onContent: (text: string) => void) => Promise<void>;
const body = { model: 'bench-model', messages: [{ role: 'user' as const, content: 'Say a lot.' }], stream: true as const };

function contender(name: string, url: string): Consume {
  switch (name) {
    case 'docchat': {
      const client = new GatewayClient({ baseUrl: url, token: 'bench-key', rateLimits: false });
      return async (onContent) => {
        for await (const part of client.streamChatCompletion({ model: body.model, messages: body.messages })) {
          if (part.content) onContent(part.content);
        }
      };
    }
    case 'openai': {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'bench-key', maxRetries: 0 });
      return async (onContent) => {
        const stream = await client.chat.completions.create(body);
        for await (const chunk of stream) {
          const text = chunk.choices[0]?.delta?.content;
          if (text) onContent(text);
        }
      };
    }
    case 'floor':
      // The least a correct client must do: one request, SSE framing, JSON per event.
      return async (onContent) => {
        const response = await request(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'api-key': 'bench-key' },
          body: JSON.stringify(body),
        });
        let done = false;
        const parser = createParser({
          onEvent(event) {
            if (event.data === '[DONE]') return void (done = true);
            const text = JSON.parse(event.data).choices?.[0]?.delta?.content;
            if (text) onContent(text);
          },
        });
        const decoder = new TextDecoder();
        for await (const chunk of response.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
        if (!done) throw new Error('stream ended without [DONE]');
      };
    default:
      throw new Error(`unknown contender ${name}`);
  }
}

async function once(consume: Consume): Promise<{ ttft: number; total: number; length: number }> {
  const started = nowMs();
  let first = Number.NaN;
  let length = 0;
  await consume((text) => {
    if (length === 0) first = nowMs();
    length += text.length;
  });
  return { ttft: first - started, total: nowMs() - started, length };
}

async function main(): Promise<void> {
  const [name, url, warmups, runs] = process.argv.slice(2);
  const consume = contender(name!, url!);
  // The extension makes its client when DocChat connects, before the user's first question: every
  // contender gets the same idle moment between making its client and its first request.
  await new Promise((resolve) => setTimeout(resolve, IDLE_BEFORE_FIRST_REQUEST_MS));
  const baseRss = process.memoryUsage().rss;
  // The first stream of a fresh process (lazy module set-up, cold JIT) is reported apart.
  const cold = await once(consume);
  for (let i = 1; i < Number(warmups); i++) await once(consume);
  const ttftMs: number[] = [];
  const totalMs: number[] = [];
  let contentLength = 0;
  for (let i = 0; i < Number(runs); i++) {
    const r = await once(consume);
    ttftMs.push(r.ttft);
    totalMs.push(r.total);
    contentLength = r.length;
  }
  const peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    `${JSON.stringify({ coldTtftMs: cold.ttft, coldTotalMs: cold.total, ttftMs, totalMs, baseRss, peakRss, contentLength })}\n`,
  );
  process.exit(0);
}

void main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
