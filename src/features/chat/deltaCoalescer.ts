/**
 * Coalesces stream deltas into about one webview message per animation frame: a fast model can
 * send hundreds of tiny chunks per second, and each `postMessage` costs a structured clone plus
 * a render in the webview.
 */

export interface FlushScheduler {
  schedule(callback: () => void, delayMs: number): unknown;
  cancel(handle: unknown): void;
}

const timerScheduler: FlushScheduler = {
  schedule: (callback, delayMs) => setTimeout(callback, delayMs),
  cancel: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** One frame at 60 Hz. */
export const FRAME_MS = 16;

export class DeltaCoalescer {
  private buffer: string[] = [];
  private timer: unknown;
  private disposed = false;

  constructor(
    private readonly emit: (text: string) => void,
    private readonly intervalMs = FRAME_MS,
    private readonly scheduler: FlushScheduler = timerScheduler,
  ) {}

  push(text: string): void {
    if (this.disposed || text === '') {
      return;
    }
    this.buffer.push(text);
    if (this.timer === undefined) {
      this.timer = this.scheduler.schedule(() => {
        this.timer = undefined;
        this.flush();
      }, this.intervalMs);
    }
  }

  /** Emits whatever is buffered now (before a terminal message, so nothing arrives after it). */
  flush(): void {
    if (this.timer !== undefined) {
      this.scheduler.cancel(this.timer);
      this.timer = undefined;
    }
    if (this.buffer.length === 0 || this.disposed) {
      return;
    }
    const text = this.buffer.join('');
    this.buffer = [];
    this.emit(text);
  }

  dispose(): void {
    this.flush();
    this.disposed = true;
  }
}
