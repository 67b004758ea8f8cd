/**
 * Optional CPU profiles of the benchmark's cases (`LATENCY_CPU_PROFILE=<folder>`): the Chrome
 * DevTools protocol's Profiler on the workbench page, which also runs the chat webview (a
 * same-origin frame in code-server). Each case writes `<case>.cpuprofile` to the folder (not to
 * the repository) and prints its top frames by self time.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { progress } from '../lib/report';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  name: string;
  totalMs: number;
  top: { frame: string; selfMs: number }[];
}

/** Top frames by self time (ms), `(idle)` and `(program)` included so the share of work shows. */
export function summarize(name: string, profile: Profile, count = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i]!);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url ? url.split('/').pop()!.split('?')[0] : '';
    const frame = `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
    // A sample's time is the delta to the next one.
    self.set(frame, (self.get(frame) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  }
  const top = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, selfMs]) => ({ frame, selfMs: Math.round(selfMs * 10) / 10 }));
  return { name, totalMs: Math.round((profile.endTime - profile.startTime) / 1000), top };
}

/** Starts a profile when LATENCY_CPU_PROFILE is set; the returned stop() writes and summarises it. */
export async function startProfile(page: Page, name: string): Promise<() => Promise<ProfileSummary | undefined>> {
  const folder = process.env.LATENCY_CPU_PROFILE;
  if (!folder) return async () => undefined;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    await cdp.detach();
    writeFileSync(path.join(folder, `${name}.cpuprofile`), JSON.stringify(profile));
    const summary = summarize(name, profile);
    progress(`profile ${name}: ${summary.totalMs} ms\n${summary.top.map((t) => `      ${t.selfMs} ms  ${t.frame}`).join('\n')}`);
    return summary;
  };
}
