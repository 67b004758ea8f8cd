import { type Clock } from './clock';

/**
 * A token bucket holding `perMinute` requests that refills continuously. Callers reserve a token
 * (the count may go negative: that is the queue) and sleep until their reservation is due, so
 * concurrent callers are spaced out instead of stampeding after each refill.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private blockedUntil = 0;
  private readonly msPerToken: number;

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {
    this.tokens = perMinute;
    this.updatedAt = clock.now();
    this.msPerToken = 60_000 / perMinute;
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.updatedAt);
    this.tokens = Math.min(this.perMinute, this.tokens + elapsed / this.msPerToken);
    this.updatedAt = now;
  }

  /** Waits until a request may be sent; `onWait` hears about every wait before it starts. */
  async take(signal: AbortSignal | undefined, onWait: (waitMs: number) => void): Promise<void> {
    this.refill();
    this.tokens -= 1;
    // Our place in the queue: later reservations see a deeper deficit and get a later turn.
    const due = this.clock.now() + (this.tokens < 0 ? Math.ceil(-this.tokens * this.msPerToken) : 0);
    try {
      for (;;) {
        const wait = Math.max(due, this.blockedUntil) - this.clock.now();
        if (wait <= 0) return;
        onWait(wait);
        await this.clock.sleep(wait, signal);
      }
    } catch (error) {
      this.tokens += 1; // cancelled: give the reservation back
      throw error;
    }
  }

  /** A 429 means the server's window is exhausted: empty the bucket and honour its wait. */
  drain(retryAfterMs?: number): void {
    this.refill();
    this.tokens = Math.min(this.tokens, 0);
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      this.blockedUntil = Math.max(this.blockedUntil, this.clock.now() + retryAfterMs);
    }
  }

  /** Tokens available now (for tests and diagnostics). */
  available(): number {
    this.refill();
    return this.tokens;
  }
}

export class RateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly limits: Readonly<Record<string, number | undefined>>,
    private readonly clock: Clock,
    private readonly onWait?: (e: { operation: string; waitMs: number }) => void,
  ) {}

  private bucket(operation: string): TokenBucket | undefined {
    const perMinute = this.limits[operation];
    if (!perMinute || perMinute <= 0 || !Number.isFinite(perMinute)) return undefined;
    let bucket = this.buckets.get(operation);
    if (!bucket) {
      bucket = new TokenBucket(perMinute, this.clock);
      this.buckets.set(operation, bucket);
    }
    return bucket;
  }

  async acquire(operation: string, signal?: AbortSignal): Promise<void> {
    await this.bucket(operation)?.take(signal, (waitMs) => this.onWait?.({ operation, waitMs }));
  }

  drain(operation: string, retryAfterMs?: number): void {
    this.bucket(operation)?.drain(retryAfterMs);
  }
}
