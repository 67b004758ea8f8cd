/**
 * A pool of worker threads that convert and chunk files off the serving thread, so lists, search
 * and chat keep answering while a big file converts. Each conversion is bounded: in time (the
 * worker is terminated and replaced), in progress (a conversion that reports no step for
 * `stallMs` is stopped, naming its file and last step), in memory (the worker's resource limits),
 * and by the converters' own bounds (HTML depth, output size, PDF pages, DOCX archive). A file
 * past a bound fails with a ConversionError naming it; the other conversions go on. A long
 * conversion does not hold up the others: while every worker is busy, `extraWorkers` more are
 * started, and they take the files waiting once a conversion has run for `longMs`. A cancelled conversion (its file was
 * deleted) leaves the queue, or has its worker terminated, at once.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { formatBytes } from '../http/body';
import { ConversionCancelled, ConversionError } from './errors';
import { runConversion, type ConversionJob, type ConversionResult } from './job';
import { DEFAULT_CONVERSION_LIMITS, type ConversionLimits } from './limits';
import type { WorkerReply } from './serve';

interface Pending {
  id: number;
  job: ConversionJob;
  resolve: (result: ConversionResult) => void;
  reject: (error: Error) => void;
  /** Stops listening to the job's cancellation signal. */
  detach: () => void;
}

interface Busy {
  pending: Pending;
  /** The last step the conversion reported ("reading page 2"). */
  step?: string;
  /** Running for longer than `longMs`. */
  long: boolean;
  /** Running for longer than a quarter of `longMs`: a worker starts beside it, in case it runs long. */
  slow: boolean;
  cancelTimers: () => void;
  rearmStall: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  busy?: Busy;
}

/**
 * The worker script: dist/convert-worker.js next to the backend bundle (dist/backend.js,
 * dist/backend-cli.js); from the TypeScript sources (tests), worker.ts loaded through tsx.
 */
function workerEntry(script?: string): { file: string; eval?: boolean } {
  if (script?.endsWith('.js')) return { file: script };
  const bundled = path.join(__dirname, 'convert-worker.js');
  if (!script && existsSync(bundled)) return { file: bundled };
  const source = script ?? path.join(__dirname, 'worker.ts');
  if (existsSync(source)) return { file: `require('tsx/cjs'); require(${JSON.stringify(source)});`, eval: true };
  throw new Error(`The conversion worker is missing: ${bundled}.`);
}

/** Calls `expire` once `ms` have passed, unless the returned function cancels it first. */
export type ConversionTimer = (expire: () => void, ms: number) => () => void;

const wallTimer: ConversionTimer = (expire, ms) => {
  const timer = setTimeout(expire, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

export interface ConversionPoolOptions {
  /** The worker script (a module that calls serveConversions); default the bundled worker. */
  workerScript?: string;
  /** Times the progress bound and when a conversion counts as long; default the wall clock. */
  timer?: ConversionTimer;
}

export class ConversionPool {
  private readonly limits: ConversionLimits;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    limits: Partial<ConversionLimits> = {},
    /** Times the overall bound of a conversion (tests expire it themselves). */
    private readonly startTimer: ConversionTimer = wallTimer,
    private readonly options: ConversionPoolOptions = {},
  ) {
    this.limits = { ...DEFAULT_CONVERSION_LIMITS, ...limits };
  }

  /** Conversions that can run at once (the workers and those started beside long conversions). */
  get size(): number {
    return this.limits.workers + (this.limits.workers > 0 ? this.limits.extraWorkers : 0);
  }

  /** Converts `job` in a worker; `signal` cancels it (the promise rejects with ConversionCancelled). */
  convert(job: ConversionJob, signal?: AbortSignal): Promise<ConversionResult> {
    const options = {
      ...job.options,
      maxHtmlDepth: this.limits.maxHtmlDepth,
      maxOutputBytes: this.limits.maxOutputBytes,
      maxOcrMemoryMb: this.limits.maxOcrMemoryMb,
      ocrLanguages: job.options.ocrLanguages ?? this.limits.ocrLanguages,
    };
    if (signal?.aborted) return Promise.reject(new ConversionCancelled(job.filename));
    if (this.limits.workers <= 0) return runConversion({ ...job, options });
    if (this.closed) return Promise.reject(new Error('The conversion pool is closed.'));
    if (this.queue.length >= this.limits.maxQueue) {
      return Promise.reject(
        new ConversionError('conversion_bound', `conversion refused: ${this.limits.maxQueue} files are already waiting to be converted.`),
      );
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => this.cancel(pending);
      const pending: Pending = {
        id: this.nextId++,
        job: { ...job, options },
        resolve: (result) => {
          pending.detach();
          resolve(result);
        },
        reject: (error) => {
          pending.detach();
          reject(error);
        },
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(pending);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('The backend is stopping.'));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.busy) {
          slot.busy.cancelTimers();
          slot.busy.pending.reject(new Error('The backend is stopping.'));
        }
        return slot.worker.terminate();
      }),
    );
  }

  /** A cancelled job leaves the queue; a running one has its worker terminated, and the next starts. */
  private cancel(pending: Pending): void {
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      pending.reject(new ConversionCancelled(pending.job.filename));
      return;
    }
    const slot = this.slots.find((s) => s.busy?.pending === pending);
    if (slot) this.fail(slot, new ConversionCancelled(pending.job.filename));
  }

  /** Conversions that may run now: the workers, and one more for each long conversion (up to extraWorkers). */
  private capacity(): number {
    const long = this.slots.filter((s) => s.busy?.long).length;
    return this.limits.workers + Math.min(this.limits.extraWorkers, long);
  }

  private dispatch(): void {
    while (!this.closed && this.queue.length && this.busyCount() < this.capacity()) {
      const slot = this.slots.find((s) => s.ready && !s.busy);
      if (!slot) break;
      this.start(slot, this.queue.shift()!);
    }
    if (this.closed) return;
    const busy = this.busyCount();
    // Workers for the files waiting; once every worker is busy and one conversion is slow, the
    // extra ones start beside them (a worker takes seconds to start on a busy machine), ready
    // for when a conversion runs long.
    const slow = this.slots.some((s) => s.busy?.slow);
    const wanted =
      busy >= this.limits.workers && slow
        ? this.limits.workers + this.limits.extraWorkers
        : Math.min(this.limits.workers, busy + this.queue.length);
    while (this.slots.length < wanted) this.spawn();
    // When nothing converts, the extra workers end.
    if (!busy && !this.queue.length) {
      for (const slot of this.slots.filter((s) => !s.busy)) {
        if (this.slots.length <= this.limits.workers) break;
        this.slots.splice(this.slots.indexOf(slot), 1);
        void slot.worker.terminate();
      }
    }
  }

  private start(slot: Slot, pending: Pending): void {
    const { stallMs, longMs, timeoutMs } = this.limits;
    const cancelTimeout = this.startTimer(() => this.fail(slot, this.timeoutError(pending)), timeoutMs);
    let cancelStall = () => undefined as void;
    const busy: Busy = {
      pending,
      long: false,
      slow: false,
      rearmStall: () => {
        cancelStall();
        cancelStall = (this.options.timer ?? wallTimer)(() => this.fail(slot, this.stallError(pending, busy.step)), stallMs);
      },
      cancelTimers: () => {
        cancelTimeout();
        cancelStall();
        cancelSlow();
        cancelLong();
      },
    };
    const timer = this.options.timer ?? wallTimer;
    const cancelSlow = timer(() => {
      busy.slow = true;
      this.dispatch();
    }, longMs / 4);
    const cancelLong = timer(() => {
      busy.long = busy.slow = true;
      this.dispatch();
    }, longMs);
    busy.rearmStall();
    slot.busy = busy;
    // The file's bytes are copied, not transferred: the caller keeps its buffer.
    slot.worker.postMessage({ id: pending.id, job: pending.job });
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

  private stallError(pending: Pending, step: string | undefined): ConversionError {
    const seconds = this.limits.stallMs / 1000;
    return new ConversionError(
      'conversion_bound',
      `conversion stopped: ${pending.job.filename} made no progress for ${seconds} s${step ? ` while ${step}` : ''}. ` +
        'Open it, save a copy (or print it to PDF) and attach that copy.',
    );
  }

  private spawn(): Slot {
    const entry = workerEntry(this.options.workerScript);
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
      if ('progress' in reply) {
        busy.step = reply.progress;
        busy.rearmStall();
        return;
      }
      busy.cancelTimers();
      slot.busy = undefined;
      if (reply.ok) busy.pending.resolve(reply.result);
      else {
        const error = reply.code ? new ConversionError(reply.code as never, reply.message) : new Error(reply.message);
        (error as ConversionError).step = busy.step;
        busy.pending.reject(error);
      }
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
      slot.busy.cancelTimers();
      (error as ConversionError).step ??= slot.busy.step;
      slot.busy.pending.reject(error);
      slot.busy = undefined;
    }
    void slot.worker.terminate();
    this.dispatch();
  }
}
