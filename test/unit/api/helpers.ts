import * as assert from 'node:assert/strict';
import { DocumentsClient, type DocumentsClientOptions } from '../../../src/api/documents/client';
import { GatewayClient, type GatewayClientOptions } from '../../../src/api/gateway/client';
import { type Clock, systemClock } from '../../../src/api/http/clock';
import { AbortedError, type DocChatError } from '../../../src/api/http/errors';
import type { LogLevel } from '../../../src/api/http/options';

export const TOKEN = 'doc-token-7f3a9c';
export const API_KEY = 'gw-key-51b2e8';

interface Timer {
  at: number;
  hook: Promise<void>;
  resolve(): void;
}

/** The real clock, counting the sleeps still running: at zero, nothing is waiting to wake and act. */
export class WatchedClock implements Clock {
  pending = 0;

  now(): number {
    return systemClock.now();
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.pending++;
    try {
      await systemClock.sleep(ms, signal);
    } finally {
      this.pending--;
    }
  }
}

/**
 * Virtual time: sleeps never really wait. Once everything runnable has run, the earliest sleeper
 * wakes and the clock jumps to its wake time, so concurrent sleepers see consistent time.
 */
export class FakeClock implements Clock {
  time = 1_700_000_000_000;
  readonly sleeps: number[] = [];
  /** Runs when a sleep starts (e.g. to start a server the client is waiting for). */
  onSleep?: (ms: number) => void | Promise<void>;
  private timers: Timer[] = [];
  private flushing = false;

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new AbortedError());
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      const timer: Timer = {
        at: this.time + ms,
        hook: Promise.resolve(this.onSleep?.(ms)).then(() => undefined),
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => void this.wakeEarliest());
  }

  private async wakeEarliest(): Promise<void> {
    const timer = this.timers.sort((a, b) => a.at - b.at)[0];
    if (timer) {
      await timer.hook;
      if (this.timers.includes(timer)) {
        this.timers = this.timers.filter((t) => t !== timer);
        this.time = Math.max(this.time, timer.at);
        timer.resolve();
      }
    }
    this.flushing = false;
    if (this.timers.length > 0) this.schedule();
  }
}

export interface Recorded {
  logs: { level: LogLevel; message: string }[];
  waits: { operation: string; waitMs: number }[];
  retries: { operation: string; attempt: number; delayMs: number; reason: string }[];
}

export function recorder(): Recorded {
  return { logs: [], waits: [], retries: [] };
}

export function documentsClient(
  baseUrl: string,
  options: Partial<DocumentsClientOptions> & { clock?: Clock; record?: Recorded } = {},
): DocumentsClient {
  const { clock = new FakeClock(), record = recorder(), transport, ...rest } = options;
  return new DocumentsClient({
    baseUrl,
    token: TOKEN,
    rateLimits: false,
    log: (level, message) => record.logs.push({ level, message }),
    onRateLimitWait: (e) => record.waits.push(e),
    ...rest,
    transport: { clock, random: () => 0, onRetry: (e) => record.retries.push(e), ...transport },
  });
}

export function gatewayClient(
  baseUrl: string,
  options: Partial<GatewayClientOptions> & { clock?: Clock; record?: Recorded } = {},
): GatewayClient {
  const { clock = new FakeClock(), record = recorder(), transport, ...rest } = options;
  return new GatewayClient({
    baseUrl,
    token: API_KEY,
    log: (level, message) => record.logs.push({ level, message }),
    onRateLimitWait: (e) => record.waits.push(e),
    ...rest,
    transport: { clock, random: () => 0, onRetry: (e) => record.retries.push(e), ...transport },
  });
}

/** Awaits a rejection and checks it is a DocChatError of the given class; returns it for more checks. */
export async function rejects<E extends DocChatError>(promise: Promise<unknown>, type: new (...args: any[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
    return error;
  }
  assert.fail(`expected ${type.name}, but it resolved`);
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
