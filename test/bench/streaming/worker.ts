/**
 * One contender of the streaming benchmark, alone in its process so its memory is its own:
 * `node streamWorker.js <contender> <url> <warmups> <runs>` prints
 * `{coldTtftMs, coldTotalMs, ttftMs[], totalMs[], cpuMs[], baseRss, peakRss, contentLength}` as one JSON line
 * (`cpuMs`: the process's CPU time, user and system, during each timed stream).
 */
import OpenAI from 'openai';
import { GatewayClient } from '../../../src/api/gateway/client';
import { nowMs } from '../lib/stats';
import { benchRequest as body, type Consume, docchatConsumer, floorConsumer } from './contenders';

const IDLE_BEFORE_FIRST_REQUEST_MS = 100;

function contender(name: string, url: string): Consume {
  switch (name) {
    case 'docchat':
      return docchatConsumer(new GatewayClient({ baseUrl: url, token: 'bench-key', rateLimits: false }));
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
      return floorConsumer(url);
    default:
      throw new Error(`unknown contender ${name}`);
  }
}

async function once(consume: Consume): Promise<{ ttft: number; total: number; cpu: number; length: number }> {
  const cpuBefore = process.cpuUsage();
  const started = nowMs();
  let first = Number.NaN;
  let length = 0;
  await consume((text) => {
    if (length === 0) first = nowMs();
    length += text.length;
  });
  const total = nowMs() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { ttft: first - started, total, cpu: (cpu.user + cpu.system) / 1000, length };
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
  const cpuMs: number[] = [];
  let contentLength = 0;
  for (let i = 0; i < Number(runs); i++) {
    const r = await once(consume);
    ttftMs.push(r.ttft);
    totalMs.push(r.total);
    cpuMs.push(r.cpu);
    contentLength = r.length;
  }
  const peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    `${JSON.stringify({ coldTtftMs: cold.ttft, coldTotalMs: cold.total, ttftMs, totalMs, cpuMs, baseRss, peakRss, contentLength })}\n`,
  );
  process.exit(0);
}

void main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
