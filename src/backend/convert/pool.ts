/**
 * A pool of worker threads that convert and chunk files off the serving thread, so lists, search
 * and chat keep answering while a big file converts. Each conversion is bounded: in time (the
 * worker is terminated and replaced), in memory (the worker's resource limits), and by the
 * converters' own bounds (HTML depth, output size, PDF pages, DOCX archive). A file past a bound
 * fails with a ConversionError naming it; the other conversions go on.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { formatBytes } from '../http/body';
import { ConversionError } from './errors';
import { runConversion, type ConversionJob, type ConversionResult } from './job';
import { DEFAULT_CONVERSION_LIMITS, type ConversionLimits } from './limits';
import type { WorkerReply } from './worker';

interface Pending {
  id: number;
  job: ConversionJob;
  resolve: (result: ConversionResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  busy?: { pending: Pending; cancelTimer: () => void };
}

/**
 * The worker script: dist/convert-worker.js next to the backend bundle (dist/backend.js,
 * dist/backend-cli.js); from the TypeScript sources (tests), worker.ts loaded through tsx.
 */
function workerEntry(): { file: string; eval?: boolean } {
  const bundled = path.join(__dirname, 'convert-worker.js');
  if (existsSync(bundled)) return { file: bundled };
  const source = path.join(__dirname, 'worker.ts');
  if (existsSync(source)) return { file: `require('tsx/cjs'); require(${JSON.stringify(source)});`, eval: true };
  throw new Error(`The conversion worker is missing: ${bundled}.`);
}

/** Calls `expire` once `ms` have passed, unless the returned function cancels it first. */
export type ConversionTimer = (expire: () => void, ms: number) => () => void;

const wallTimer: ConversionTimer = (expire, ms) => {
  const timer = setTimeout(expire, ms);
  return () => clearTimeout(timer);
};

export class ConversionPool {
  private readonly limits: ConversionLimits;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    limits: Partial<ConversionLimits> = {},
    private readonly startTimer: ConversionTimer = wallTimer,
  ) {
    this.limits = { ...DEFAULT_CONVERSION_LIMITS, ...limits };
  }

  get size(): number {
    return this.limits.workers;
  }

  convert(job: ConversionJob): Promise<ConversionResult> {
    const options = {
      ...job.options,
      maxHtmlDepth: this.limits.maxHtmlDepth,
      maxOutputBytes: this.limits.maxOutputBytes,
      maxOcrMemoryMb: this.limits.maxOcrMemoryMb,
    };
    if (this.limits.workers <= 0) return runConversion({ ...job, options });
    if (this.closed) return Promise.reject(new Error('The conversion pool is closed.'));
    if (this.queue.length >= this.limits.maxQueue) {
      return Promise.reject(
        new ConversionError('conversion_bound', `conversion refused: ${this.limits.maxQueue} files are already waiting to be converted.`),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job: { ...job, options }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('The backend is stopping.'));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.busy) {
          slot.busy.cancelTimer();
          slot.busy.pending.reject(new Error('The backend is stopping.'));
        }
        return slot.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (!this.closed && this.queue.length) {
      if (this.slots.length < Math.min(this.limits.workers, this.queue.length + this.busyCount())) this.spawn();
      const slot = this.slots.find((s) => s.ready && !s.busy);
      if (!slot) return;
      const pending = this.queue.shift()!;
      const cancelTimer = this.startTimer(() => this.fail(slot!, this.timeoutError(pending)), this.limits.timeoutMs);
      slot.busy = { pending, cancelTimer };
      // The file's bytes are copied, not transferred: the caller keeps its buffer.
      slot.worker.postMessage({ id: pending.id, job: pending.job });
    }
  }

  private busyCount(): number {
    return this.slots.filter((s) => s.busy).length;
  }

  private timeoutError(pending: Pending): ConversionError {
    const seconds = this.limits.timeoutMs / 1000;
    return new ConversionError(
      'conversion_bound',
      `conversion stopped: ${pending.job.filename} took longer than the limit of ${seconds} s.`,
    );
  }

  private spawn(): Slot {
    const entry = workerEntry();
    const worker = new Worker(entry.file, {
      eval: entry.eval,
      resourceLimits: { maxOldGenerationSizeMb: this.limits.maxMemoryMb },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: WorkerReply) => {
      if ('ready' in reply) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const busy = slot.busy;
      if (!busy || busy.pending.id !== reply.id) return;
      busy.cancelTimer();
      slot.busy = undefined;
      if (reply.ok) busy.pending.resolve(reply.result);
      else busy.pending.reject(reply.code ? new ConversionError(reply.code as never, reply.message) : new Error(reply.message));
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const busy = slot.busy;
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const failure = outOfMemory
        ? new ConversionError(
            'conversion_bound',
            `conversion stopped: ${busy?.pending.job.filename ?? 'the file'} needed more memory than the limit of ${formatBytes(this.limits.maxMemoryMb * 1024 * 1024)}.`,
          )
        : error;
      this.fail(slot, failure);
    });
    worker.on('exit', () => this.fail(slot, new Error('The conversion worker stopped unexpectedly.')));
    this.slots.push(slot);
    return slot;
  }

  /** Ends the slot's job with `error`, terminates its worker and lets a new one take the queue. */
  private fail(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    if (slot.busy) {
      slot.busy.cancelTimer();
      slot.busy.pending.reject(error);
      slot.busy = undefined;
    }
    void slot.worker.terminate();
    this.dispatch();
  }
}
