import { abortedError, type Clock } from './clock';

/** The minute a service counts its per-minute limits over. */
const WINDOW_MS = 60_000;
/**
 * Kept on top of the minute: a request reaches the service a little after it leaves, and one that
 * left later may arrive sooner, so the service could still count the request a minute back.
 */
export const ARRIVAL_MARGIN_MS = 1_000;

/**
 * The requests of one operation over the last minute, as a service counting its per-minute limit
 * over a sliding minute sees them: a request goes only when fewer than the limit went in the minute
 * before it. A burst of the limit goes at once and the next waits until the first of them is a
 * minute old; a token bucket refilling at the same rate would send up to twice the limit within one
 * minute, and the service refuses the excess. Callers wait in a queue, first come first served, and
 * each works out its turn from the requests sent and the turns of the callers ahead of it, so
 * concurrent callers are spread over the minutes instead of stampeding when one comes free, and a
 * 429's wait holds them all without releasing a burst over the limit when it ends. A caller that
 * gives up its place (cancelled) wakes those behind it to work out their turns again.
 */
export class SlidingWindow {
  /** When each request of the window went, ascending. */
  private readonly sent: number[] = [];
  private readonly queue: object[] = [];
  private blockedUntil = 0;
  private lastNow: number;
  /** Wakes the callers asleep on their turn when one ahead of them leaves the queue without sending. */
  private vacated = new AbortController();
  /**
   * Requests a window lets through, and the window's length: a limit under 1 a minute gets a longer
   * window (0.5: one in two minutes); a fraction above 1 is rounded down (1.5: one a minute).
   */
  private readonly count: number;
  private readonly windowMs: number;

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {
    this.count = Math.max(1, Math.floor(perMinute));
    this.windowMs = (perMinute < 1 ? WINDOW_MS / perMinute : WINDOW_MS) + ARRIVAL_MARGIN_MS;
    this.lastNow = clock.now();
  }

  /** Waits until a request may be sent; `onWait` hears about every wait before it starts. */
  async take(signal: AbortSignal | undefined, onWait: (waitMs: number) => void): Promise<void> {
    const caller = {};
    this.queue.push(caller);
    let sent = false;
    try {
      for (;;) {
        const now = this.now();
        const wait = this.turn(caller, now) - now;
        if (wait <= 0) {
          this.sent.push(now);
          sent = true;
          return;
        }
        onWait(wait);
        await this.nap(wait, signal);
      }
    } finally {
      this.queue.splice(this.queue.indexOf(caller), 1);
      if (!sent) {
        // Its turn is free: the callers behind it work theirs out again.
        this.vacated.abort();
        this.vacated = new AbortController();
      }
    }
  }

  /** Sleeps `ms`, or less when a caller ahead leaves the queue; throws when `signal` aborts. */
  private async nap(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) throw abortedError(signal);
    const nap = new AbortController();
    const stop = () => nap.abort();
    signal?.addEventListener('abort', stop, { once: true });
    const vacated = this.vacated.signal;
    vacated.addEventListener('abort', stop, { once: true });
    try {
      await this.clock.sleep(ms, nap.signal);
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal);
      if (!vacated.aborted) throw error;
    } finally {
      signal?.removeEventListener('abort', stop);
      vacated.removeEventListener('abort', stop);
    }
  }

  /**
   * A 429: the service counted more than this client sent (other clients of the same user share
   * the limit). Nothing more goes before the wait it names is over.
   */
  drain(retryAfterMs?: number): void {
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      this.blockedUntil = Math.max(this.blockedUntil, this.now() + retryAfterMs);
    }
  }

  /** The clock's time; when the system clock is set back, the window's times move back with it. */
  private now(): number {
    const now = this.clock.now();
    const back = this.lastNow - now;
    if (back > 0) {
      for (let i = 0; i < this.sent.length; i++) this.sent[i]! -= back;
      this.blockedUntil = Math.max(0, this.blockedUntil - back);
    }
    this.lastNow = now;
    return now;
  }

  /**
   * When `caller` may send: each caller ahead of it in the queue takes the first moment, from now
   * and after the caller before it, when fewer than the limit went (or are to go) in the window
   * before it. Its turn is at once only when the requests really sent leave room.
   */
  private turn(caller: object, now: number): number {
    const sent = this.sent;
    let stale = 0;
    while (stale < sent.length && sent[stale]! <= now - this.windowMs) stale++;
    if (stale) sent.splice(0, stale);
    // The sent times, then the turns ahead: ascending, since no turn is before now.
    const times = [...sent];
    let turn = Math.max(now, this.blockedUntil);
    for (const ahead of this.queue) {
      turn = Math.max(turn, times.length >= this.count ? times[times.length - this.count]! + this.windowMs : turn);
      if (ahead === caller) break;
      times.push(turn);
    }
    return turn;
  }
}

export class RateLimiter {
  private readonly windows = new Map<string, SlidingWindow>();

  constructor(
    private readonly limits: Readonly<Record<string, number | undefined>>,
    private readonly clock: Clock,
    private readonly onWait?: (e: { operation: string; waitMs: number }) => void,
  ) {}

  private window(operation: string): SlidingWindow | undefined {
    const perMinute = this.limits[operation];
    if (!perMinute || perMinute <= 0 || !Number.isFinite(perMinute)) return undefined;
    let window = this.windows.get(operation);
    if (!window) {
      window = new SlidingWindow(perMinute, this.clock);
      this.windows.set(operation, window);
    }
    return window;
  }

  async acquire(operation: string, signal?: AbortSignal): Promise<void> {
    await this.window(operation)?.take(signal, (waitMs) => this.onWait?.({ operation, waitMs }));
  }

  drain(operation: string, retryAfterMs?: number): void {
    this.window(operation)?.drain(retryAfterMs);
  }
}
