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

  /**
   * The first delta after a quiet frame goes out at once (the user waits for it); what arrives
   * in the frame after it goes out together when the frame ends.
   */
  push(text: string): void {
    if (this.disposed || text === '') {
      return;
    }
    this.buffer.push(text);
    if (this.timer === undefined) {
      this.emitBuffered();
      this.openFrame();
    }
  }

  private openFrame(): void {
    this.timer = this.scheduler.schedule(() => {
      this.timer = undefined;
      if (this.emitBuffered()) {
        this.openFrame();
      }
    }, this.intervalMs);
  }

  private emitBuffered(): boolean {
    if (this.buffer.length === 0 || this.disposed) {
      return false;
    }
    const text = this.buffer.join('');
    this.buffer = [];
    this.emit(text);
    return true;
  }

  /** Emits whatever is buffered now (before a terminal message, so nothing arrives after it). */
  flush(): void {
    if (this.timer !== undefined) {
      this.scheduler.cancel(this.timer);
      this.timer = undefined;
    }
    this.emitBuffered();
  }

  dispose(): void {
    this.flush();
    this.disposed = true;
  }
}
