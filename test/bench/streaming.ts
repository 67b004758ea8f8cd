/**
 * Benchmark 1, streaming client: time to first token, total time and peak memory of a 5,000-chunk
 * completion for DocChat's GatewayClient, the openai SDK and a floor (undici.request +
 * eventsource-parser). Each contender runs in its own process per round; rounds interleave the
 * contenders so drift in the machine hits all of them alike.
 */
import { runWorker } from './lib/child';
import { main, progress, type BenchResult } from './lib/report';
import { goal, mb, ms, ratio, summarize } from './lib/stats';
import { startSseServer } from './streaming/sseServer';

const CHUNKS = 5_000;
const ROUNDS = 5;
const WARMUPS = 3;
const RUNS_PER_ROUND = 5;
const CONTENDERS = [
  { id: 'docchat', label: 'DocChat GatewayClient.streamChatCompletion' },
  { id: 'openai', label: 'openai SDK (chat.completions.create, stream)' },
  { id: 'floor', label: 'floor: undici.request + eventsource-parser' },
] as const;

interface WorkerResult {
  coldTtftMs: number;
  coldTotalMs: number;
  ttftMs: number[];
  totalMs: number[];
  cpuMs: number[];
  baseRss: number;
  peakRss: number;
  contentLength: number;
}

main(async (): Promise<BenchResult> => {
  const server = await startSseServer(CHUNKS);
  const samples = new Map<
    string,
    { ttft: number[]; total: number[]; cpu: number[]; coldTtft: number[]; coldTotal: number[]; peak: number[]; growth: number[] }
  >();
  for (const c of CONTENDERS) samples.set(c.id, { ttft: [], total: [], cpu: [], coldTtft: [], coldTotal: [], peak: [], growth: [] });
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? CONTENDERS : [...CONTENDERS].reverse();
      for (const c of order) {
        progress(`streaming round ${round}/${ROUNDS}: ${c.id}`);
        const r = await runWorker<WorkerResult>('streamWorker.js', [c.id, server.url, String(WARMUPS), String(RUNS_PER_ROUND)]);
        if (r.contentLength !== server.content.length) {
          throw new Error(`${c.id} received ${r.contentLength} characters, the server sent ${server.content.length}`);
        }
        const s = samples.get(c.id)!;
        s.ttft.push(...r.ttftMs);
        s.total.push(...r.totalMs);
        s.cpu.push(...r.cpuMs);
        s.coldTtft.push(r.coldTtftMs);
        s.coldTotal.push(r.coldTotalMs);
        s.peak.push(r.peakRss);
        s.growth.push(r.peakRss - r.baseRss);
      }
    }
  } finally {
    await server.close();
  }

  const stat = (id: string, key: 'ttft' | 'total' | 'cpu' | 'coldTtft' | 'coldTotal' | 'peak' | 'growth') =>
    summarize(samples.get(id)![key]);
  const floorTotal = stat('floor', 'total').median;
  const sdkTotal = stat('openai', 'total').median;
  const timeRows = (key: 'ttft' | 'total' | 'cpu' | 'coldTtft' | 'coldTotal') =>
    CONTENDERS.map((c) => {
      const s = stat(c.id, key);
      return [
        c.label,
        ms(s.median),
        ms(s.min),
        ms(s.max),
        ratio(s.median, stat('floor', key).median),
        ratio(s.median, stat('openai', key).median),
        s.n,
      ];
    });
  const docchatTotal = stat('docchat', 'total').median;
  const docchatTtft = stat('docchat', 'ttft').median;
  const notes: string[] = [];
  const metFloor = docchatTotal <= 1.05 * floorTotal;
  const metSdk = docchatTotal <= 0.8 * sdkTotal;
  const coldTtft = stat('docchat', 'coldTtft').median;
  const sdkColdTtft = stat('openai', 'coldTtft').median;
  const metCold = coldTtft <= sdkColdTtft;
  if (!metFloor) notes.push(`DocChat's total time is ${ratio(docchatTotal, floorTotal)} the floor's (goal ≤ 1.05×).`);
  if (!metSdk) notes.push(`DocChat's total time is ${ratio(docchatTotal, sdkTotal)} the openai SDK's (goal ≤ 0.8×).`);
  if (!metCold) notes.push(`DocChat's cold first token takes ${ratio(coldTtft, sdkColdTtft)} the openai SDK's (goal ≤ 1.0×).`);
  return {
    id: 'streaming',
    title: 'Streaming client',
    goal: "Warm total time ≤ 1.05× the floor and ≤ 0.8× the openai SDK; a fresh process's first token no later than the openai SDK's.",
    method: `A local SSE server on 127.0.0.1 sends a ${CHUNKS.toLocaleString('en')}-chunk completion (${mb(server.bytes)} MB of SSE). Each contender runs in a fresh Node process per round (${ROUNDS} rounds, interleaved): it makes its client, is idle for 100 ms (as the extension's client exists before the first question), then runs ${WARMUPS} warm-up streams (the first is reported as "cold"), then ${RUNS_PER_ROUND} timed streams; peak memory is the process's maximum RSS.`,
    tables: [
      {
        caption: 'Total time of a warm stream (ms)',
        columns: ['contender', 'median', 'min', 'max', '× floor', '× SDK', 'n'],
        rows: timeRows('total'),
      },
      {
        caption:
          "CPU time of a warm stream (ms): the client process's user + system time during the stream (time spent waiting for a core on a busy machine is not in it)",
        columns: ['contender', 'median', 'min', 'max', '× floor', '× SDK', 'n'],
        rows: timeRows('cpu'),
      },
      {
        caption: 'Time to first token, warm (ms)',
        columns: ['contender', 'median', 'min', 'max', '× floor', '× SDK', 'n'],
        rows: timeRows('ttft'),
      },
      {
        caption: 'First stream in a fresh process (cold): total time (ms)',
        columns: ['contender', 'median', 'min', 'max', '× floor', '× SDK', 'n'],
        rows: timeRows('coldTotal'),
      },
      {
        caption: 'First stream in a fresh process (cold): time to first token (ms)',
        columns: ['contender', 'median', 'min', 'max', '× floor', '× SDK', 'n'],
        rows: timeRows('coldTtft'),
      },
      {
        caption: 'Peak memory of the process (MB): maximum RSS, and its growth over the RSS after loading the client',
        columns: ['contender', 'peak RSS median', 'min', 'max', 'growth median', '× floor (peak)', '× SDK (peak)'],
        rows: CONTENDERS.map((c) => {
          const p = stat(c.id, 'peak');
          return [
            c.label,
            mb(p.median),
            mb(p.min),
            mb(p.max),
            mb(stat(c.id, 'growth').median),
            ratio(p.median, stat('floor', 'peak').median),
            ratio(p.median, stat('openai', 'peak').median),
          ];
        }),
      },
      {
        caption: 'Goals (medians)',
        columns: ['goal', 'DocChat', 'target', 'goal met'],
        rows: [
          ['total time vs floor', ratio(docchatTotal, floorTotal), '≤ 1.05×', goal(metFloor)],
          ['total time vs openai SDK', ratio(docchatTotal, sdkTotal), '≤ 0.8×', goal(metSdk)],
          ['CPU time vs floor (for information)', ratio(stat('docchat', 'cpu').median, stat('floor', 'cpu').median), '—', '—'],
          ['cold time to first token vs openai SDK', ratio(coldTtft, sdkColdTtft), '≤ 1.0×', goal(metCold)],
          ['cold time to first token vs floor (for information)', ratio(coldTtft, stat('floor', 'coldTtft').median), '—', '—'],
          ['time to first token vs floor (for information)', ratio(docchatTtft, stat('floor', 'ttft').median), '—', '—'],
        ],
      },
    ],
    notes,
  };
});
