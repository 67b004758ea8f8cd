import { type Clock } from './clock';

/** The minute a service counts its per-minute limits over. */
const WINDOW_MS = 60_000;
/**
 * Kept on top of the minute: a request reaches the service a little after it leaves, and one that
 * left later may arrive sooner, so the service could still count the request a minute back.
 */
const ARRIVAL_MARGIN_MS = 1_000;

/**
 * The requests of one operation over the last minute, as a service counting its per-minute limit
 * over a sliding minute sees them: a request goes when fewer than `perMinute` went in the minute
 * before it. A burst of `perMinute` goes at once and the next waits until the first of them is a
 * minute old; a token bucket refilling at the same rate would send up to twice the limit within one
 * minute, and the service refuses the excess. Callers reserve their turn in order (a reservation
 * counts as sent), so concurrent callers queue instead of stampeding when a turn comes free.
 */
export class SlidingWindow {
  /** When each request of the last minute went or is to go, ascending. */
  private readonly times: number[] = [];
  private blockedUntil = 0;

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Waits until a request may be sent; `onWait` hears about every wait before it starts. */
  async take(signal: AbortSignal | undefined, onWait: (waitMs: number) => void): Promise<void> {
    const now = this.clock.now();
    this.forget(now);
    const times = this.times;
    // The turn: when the perMinute-th latest reservation is a minute old (at once while fewer are).
    let due = times.length >= this.perMinute ? Math.max(now, times[times.length - this.perMinute]! + WINDOW_MS + ARRIVAL_MARGIN_MS) : now;
    this.insert(due);
    try {
      for (;;) {
        const wait = Math.max(due, this.blockedUntil) - this.clock.now();
        if (wait <= 0) break;
        onWait(wait);
        await this.clock.sleep(wait, signal);
      }
    } catch (error) {
      this.remove(due); // cancelled: give the turn back
      throw error;
    }
    // Held past its turn (a 429's wait): the request counts from when it really goes.
    const sent = this.clock.now();
    if (sent > due) {
      this.remove(due);
      this.insert(sent);
      due = sent;
    }
  }

  /**
   * A 429: the service counted more than this client sent (other clients of the same user share
   * the limit). Nothing more goes before the wait it names is over.
   */
  drain(retryAfterMs?: number): void {
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      this.blockedUntil = Math.max(this.blockedUntil, this.clock.now() + retryAfterMs);
    }
  }

  private forget(now: number): void {
    let stale = 0;
    while (stale < this.times.length && this.times[stale]! <= now - WINDOW_MS - ARRIVAL_MARGIN_MS) stale++;
    if (stale) this.times.splice(0, stale);
  }

  private insert(time: number): void {
    let at = this.times.length;
    while (at > 0 && this.times[at - 1]! > time) at--;
    this.times.splice(at, 0, time);
  }

  private remove(time: number): void {
    const at = this.times.lastIndexOf(time);
    if (at >= 0) this.times.splice(at, 1);
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
      window = new SlidingWindow(Math.max(1, Math.floor(perMinute)), this.clock);
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
