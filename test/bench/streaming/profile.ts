/**
 * CPU profile of warm streams, DocChat against the floor, in one process:
 * `npx tsx test/bench/streaming/profile.ts [rounds] [streamsPerRound] [folder]`.
 * The benchmark's SSE server runs in a child process (so its work is not in the profile); the
 * contenders alternate in rounds, each round's streams profiled on their own with the inspector,
 * and the profiles of a contender are summed. Prints self time by category and the top frames of
 * each, per stream, and writes `<contender>.cpuprofile` files to the folder when one is given.
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { GatewayClient } from '../../../src/api/gateway/client';
import { forEachSample, frameLabel, type Profile } from '../latency/cpuProfile';
import { type Consume, docchatConsumer, floorConsumer } from './contenders';
import { startSseServer } from './sseServer';

const CHUNKS = 5_000;

function contenders(url: string): Record<'docchat' | 'floor', Consume> {
  return {
    docchat: docchatConsumer(new GatewayClient({ baseUrl: url, token: 'bench-key', rateLimits: false })),
    floor: floorConsumer(url),
  };
}

/**
 * What a frame does, for the table. V8 inlines the per-event callbacks into the SSE parser's loop
 * (and JSON.parse into them), so their self time is one row: "per event".
 */
function category(functionName: string, url: string): string {
  if (functionName === '(idle)') return 'idle (waiting for the network)';
  if (functionName === '(program)') return 'V8 outside JavaScript';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (
    url.includes('eventsource-parser') ||
    url.includes('/gateway/stream.ts') ||
    (url.includes('/profile.ts') && functionName === 'onEvent')
  ) {
    return 'per event: SSE framing, JSON.parse, reading the chunk';
  }
  if (functionName === 'decode' || url === 'node:internal/encoding') return 'UTF-8 decoding';
  if (url.includes('/zod/')) return 'zod (validating the request)';
  if (url.includes('/src/api/')) return 'DocChat request path (client, transport, dispatcher)';
  if (/prepare_stack_trace|errors\.js|node:path/.test(url) || functionName === 'get stack') return 'error objects and their stacks';
  if (url.includes('/undici/')) return 'undici';
  if (url.includes('/profile.ts')) return 'benchmark harness';
  if (url.startsWith('node:internal/streams') || url.startsWith('node:internal/webstreams')) return 'Node streams';
  return 'Node and native (sockets, timers, microtasks)';
}

class Totals {
  readonly byCategory = new Map<string, number>();
  readonly byFrame = new Map<string, number>();
  totalMs = 0;
  wallMs = 0;
  cpuMs = 0;
  streams = 0;

  add(profile: Profile): void {
    forEachSample(profile, (node, ms) => {
      const cat = category(node.callFrame.functionName, node.callFrame.url);
      const frame = frameLabel(node);
      this.byCategory.set(cat, (this.byCategory.get(cat) ?? 0) + ms);
      this.byFrame.set(frame, (this.byFrame.get(frame) ?? 0) + ms);
      this.totalMs += ms;
    });
  }
}

async function main(): Promise<void> {
  const [roundsArg, perRoundArg, folder] = process.argv.slice(2);
  if (process.env.SSE_SERVER_CHILD) {
    const server = await startSseServer(CHUNKS);
    process.send!({ url: server.url, length: server.content.length });
    return;
  }
  const rounds = Number(roundsArg ?? 10);
  const perRound = Number(perRoundArg ?? 10);
  const child = fork(__filename, [], { env: { ...process.env, SSE_SERVER_CHILD: '1' }, execArgv: process.execArgv });
  const { url, length } = await new Promise<{ url: string; length: number }>((resolve) => child.once('message', resolve as never));
  const run = contenders(url);
  const totals = { docchat: new Totals(), floor: new Totals() };
  const full: Record<string, Profile[]> = { docchat: [], floor: [] };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const once = async (consume: Consume) => {
    let received = 0;
    await consume((text) => (received += text.length));
    if (received !== length) throw new Error(`received ${received} characters of ${length}`);
  };
  // Warm-up: JIT and connection pool of both.
  for (let i = 0; i < 20; i++) for (const name of ['docchat', 'floor'] as const) await once(run[name]);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? (['floor', 'docchat'] as const) : (['docchat', 'floor'] as const);
    for (const name of order) {
      await session.post('Profiler.start');
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < perRound; i++) await once(run[name]);
      totals[name].wallMs += performance.now() - started;
      const used = process.cpuUsage(cpu);
      totals[name].cpuMs += (used.user + used.system) / 1000;
      totals[name].streams += perRound;
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
      totals[name].add(profile);
      if (folder && round === rounds - 1) full[name]!.push(profile);
    }
  }
  child.kill();
  if (folder) {
    for (const name of ['docchat', 'floor']) writeFileSync(path.join(folder, `${name}.cpuprofile`), JSON.stringify(full[name]![0]));
  }
  const per = (t: Totals, ms: number) => (ms / t.streams).toFixed(3);
  const d = totals.docchat;
  const f = totals.floor;
  console.log(`wall per stream: docchat ${per(d, d.wallMs)} ms, floor ${per(f, f.wallMs)} ms (${(d.wallMs / f.wallMs).toFixed(3)}×)`);
  console.log(
    `CPU per stream (profiler on): docchat ${per(d, d.cpuMs)} ms, floor ${per(f, f.cpuMs)} ms (${(d.cpuMs / f.cpuMs).toFixed(3)}×)`,
  );
  const busy = (t: Totals) => t.totalMs - (t.byCategory.get('idle') ?? 0);
  console.log(
    `sampled non-idle per stream: docchat ${per(d, busy(d))} ms, floor ${per(f, busy(f))} ms (${(busy(d) / busy(f)).toFixed(3)}×)`,
  );
  const cats = new Set([...d.byCategory.keys(), ...f.byCategory.keys()]);
  const rows = [...cats]
    .map((c) => [c, d.byCategory.get(c) ?? 0, f.byCategory.get(c) ?? 0] as const)
    .sort((a, b) => b[1] + b[2] - a[1] - a[2]);
  console.log('| category | DocChat ms/stream | floor ms/stream | difference |');
  console.log('|---|---:|---:|---:|');
  for (const [c, dm, fm] of rows) console.log(`| ${c} | ${per(d, dm)} | ${per(f, fm)} | ${((dm - fm) / d.streams).toFixed(3)} |`);
  for (const [name, t] of Object.entries(totals)) {
    console.log(`\ntop frames, ${name} (ms per stream)`);
    for (const [frame, ms] of [...t.byFrame].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${per(t, ms)}  ${frame}`);
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
