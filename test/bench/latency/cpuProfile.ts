/**
 * Optional CPU profiles of the benchmark's cases (`LATENCY_CPU_PROFILE=<folder>`): the Chrome
 * DevTools protocol's Profiler on the workbench page, which also runs the chat webview (a
 * same-origin frame in code-server), and on the extension host process (through its inspector,
 * see `inspectExtensionHost` of the harness). Each case writes `<case>.cpuprofile` and
 * `<case>.exthost.cpuprofile` to the folder (not to the repository) and prints its top frames by
 * self time.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import WebSocket from 'ws';
import { pollUntil } from '../../support/harness/poll';
import { progress } from '../lib/report';

export interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  name: string;
  totalMs: number;
  top: { frame: string; selfMs: number; origin: Origin }[];
  /** DocChat's frames, largest self time first. */
  topDocChat: { frame: string; selfMs: number }[];
  /** Self time (ms) by where the code comes from; see `origin`. */
  byOrigin: Record<Origin, number>;
  /** Time (ms) with a DocChat frame on the stack: DocChat's code and what it called (JSON.parse, I/O). */
  docchatInclusive: number;
}

export type Origin = 'idle' | 'program' | 'gc' | 'docchat' | 'vscode' | 'node' | 'other';
export const ORIGINS: Origin[] = ['idle', 'program', 'gc', 'docchat', 'vscode', 'node', 'other'];

/** Where a frame's code comes from: DocChat's bundles, VS Code (workbench or extension host), Node. */
export function origin(functionName: string, url: string): Origin {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return 'program';
  if (functionName === '(garbage collector)') return 'gc';
  // DocChat's installed bundles (code-server itself may sit in a folder named after DocChat).
  if (/\/extensions\/docchat\.docchat[^/]*\/|\/webview\/chat\.js/.test(url)) return 'docchat';
  if (/\/lib\/vscode\/|\/static\/out\/|workbench|vscode-cdn|code-server/.test(url)) return 'vscode';
  if (!url || url.startsWith('node:') || url.startsWith('internal/')) return 'node';
  return 'other';
}

/** Calls `visit` with each sample's node and its time (ms): the delta to the next sample. */
export function forEachSample(profile: Profile, visit: (node: ProfileNode, ms: number) => void): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i]!);
    if (node) visit(node, (deltas[i + 1] ?? 0) / 1000);
  }
}

/** `function file:line` of a frame. */
export function frameLabel(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url ? url.split('/').pop()!.split('?')[0] : '';
  return `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
}

/** Top frames by self time (ms), `(idle)` and `(program)` included so the share of work shows. */
export function summarize(name: string, profile: Profile, count = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  let docchatInclusive = 0;
  const self = new Map<string, number>();
  const frameOrigin = new Map<string, Origin>();
  const byOrigin = Object.fromEntries(ORIGINS.map((o) => [o, 0])) as Record<Origin, number>;
  forEachSample(profile, (node, sampleMs) => {
    const { functionName, url } = node.callFrame;
    const frame = frameLabel(node);
    self.set(frame, (self.get(frame) ?? 0) + sampleMs);
    const from = origin(functionName, url);
    frameOrigin.set(frame, from);
    byOrigin[from] += sampleMs;
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const caller = byId.get(id)!.callFrame;
      if (origin(caller.functionName, caller.url) === 'docchat') {
        docchatInclusive += sampleMs;
        break;
      }
    }
  });
  for (const o of ORIGINS) byOrigin[o] = Math.round(byOrigin[o]);
  const ranked = [...self.entries()].sort((a, b) => b[1] - a[1]);
  const top = ranked
    .slice(0, count)
    .map(([frame, selfMs]) => ({ frame, selfMs: Math.round(selfMs * 10) / 10, origin: frameOrigin.get(frame)! }));
  const topDocChat = ranked
    .filter(([frame]) => frameOrigin.get(frame) === 'docchat')
    .slice(0, 8)
    .map(([frame, selfMs]) => ({ frame, selfMs: Math.round(selfMs * 10) / 10 }));
  return {
    name,
    totalMs: Math.round((profile.endTime - profile.startTime) / 1000),
    top,
    topDocChat,
    byOrigin,
    docchatInclusive: Math.round(docchatInclusive),
  };
}

function report(folder: string, file: string, summary: ProfileSummary, profile: Profile): void {
  writeFileSync(path.join(folder, file), JSON.stringify(profile));
  const shares = [...ORIGINS.map((o) => `${o} ${summary.byOrigin[o]}`), `under DocChat frames ${summary.docchatInclusive}`].join(', ');
  const lines = [...summary.top, ...summary.topDocChat.map((t) => ({ ...t, frame: `[DocChat] ${t.frame}` }))];
  progress(`profile ${file}: ${summary.totalMs} ms (${shares})\n${lines.map((t) => `      ${t.selfMs} ms  ${t.frame}`).join('\n')}`);
}

/** A Chrome DevTools protocol session over the inspector's WebSocket. */
class InspectorSession {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id!);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    });
    socket.on('close', () => {
      for (const waiting of this.pending.values()) waiting.reject(new Error('the inspector closed the connection'));
      this.pending.clear();
    });
  }

  /** Connects to the first target the inspector on `port` (or the next few ports) lists. */
  static async connect(port: number): Promise<InspectorSession> {
    let lastError: unknown;
    // The server moves to one of the next ports if the requested one was taken meanwhile.
    for (let candidate = port; candidate < port + 10; candidate++) {
      try {
        const targets = (await (await fetch(`http://127.0.0.1:${candidate}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
        const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 1024 ** 3 });
        await new Promise<void>((resolve, reject) => {
          socket.once('open', () => resolve());
          socket.once('error', reject);
        });
        return new InspectorSession(socket);
      } catch (error) {
        lastError = error;
      }
    }
    throw new Error(`no extension host inspector on 127.0.0.1:${port}–${port + 9}: ${String(lastError)}`);
  }

  send<T = unknown>(method: string, params?: object): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.socket.close();
  }
}

/** Node's inspector port when a process opens it on SIGUSR1. */
const SIGUSR1_INSPECTOR_PORT = 9229;

/**
 * Opens the inspector of the extension host under code-server `serverPid` and resolves to its port.
 * code-server's extension host no longer takes `inspect-extensions` from the workbench URL, so
 * this sends the process SIGUSR1, on which Node opens its inspector on 127.0.0.1:9229.
 */
export async function openExtensionHostInspector(serverPid: number): Promise<number> {
  const processes = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const under = new Set([serverPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of processes) {
      if (under.has(p.ppid) && !under.has(p.pid)) {
        under.add(p.pid);
        grew = true;
      }
    }
  }
  const host = processes.find((p) => under.has(p.pid) && p.args.includes('--type=extensionHost'));
  if (!host) throw new Error(`no extension host process under code-server (pid ${serverPid})`);
  process.kill(host.pid, 'SIGUSR1');
  await pollUntil(
    () =>
      fetch(`http://127.0.0.1:${SIGUSR1_INSPECTOR_PORT}/json/list`).then(
        () => true,
        () => false,
      ),
    (open) => open,
    {
      what: `the extension host (pid ${host.pid}) opening its inspector on 127.0.0.1:${SIGUSR1_INSPECTOR_PORT}`,
      timeoutMs: 10_000,
      intervalMs: 200,
    },
  );
  return SIGUSR1_INSPECTOR_PORT;
}

export interface ProfileSummaries {
  page?: ProfileSummary;
  extensionHost?: ProfileSummary;
}

/**
 * Starts profiles of the workbench page and, given its inspector port, the extension host when
 * LATENCY_CPU_PROFILE is set; the returned stop() writes and summarises them.
 */
export async function startProfile(page: Page, name: string, extensionHostPort?: number): Promise<() => Promise<ProfileSummaries>> {
  const folder = process.env.LATENCY_CPU_PROFILE;
  if (!folder) return async () => ({});
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  const host = extensionHostPort ? await InspectorSession.connect(extensionHostPort) : undefined;
  if (host) {
    await host.send('Profiler.enable');
    // Sampling every 200 µs as in the page: the host's messages to the webview are short tasks.
    await host.send('Profiler.setSamplingInterval', { interval: 200 });
    await host.send('Profiler.start');
  }
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    await cdp.detach();
    const pageSummary = summarize(name, profile);
    report(folder, `${name}.cpuprofile`, pageSummary, profile);
    if (!host) return { page: pageSummary };
    const { profile: hostProfile } = await host.send<{ profile: Profile }>('Profiler.stop');
    host.close();
    const hostSummary = summarize(name, hostProfile, 20);
    report(folder, `${name}.exthost.cpuprofile`, hostSummary, hostProfile);
    return { page: pageSummary, extensionHost: hostSummary };
  };
}
