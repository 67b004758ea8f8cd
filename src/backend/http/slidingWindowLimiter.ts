import { ApiError } from './errors';

const WINDOW_MS = 60_000;

/**
 * Per-user, per-operation limits over a sliding one-minute window: the (limit+1)-th request
 * inside any 60 seconds is refused, and Retry-After says when the oldest one leaves the window.
 * A sliding log (not a token bucket) so the answer does not depend on how fast requests arrive.
 */
export class SlidingWindowLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(
    private readonly limits: Readonly<Record<string, number>>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws a 429 ApiError when `user` has used up `operation` for this minute. */
  check(user: string, operation: string): void {
    const limit = this.limits[operation];
    if (!limit) return;
    const key = `${operation}\u0000${user}`;
    const now = this.now();
    let window = this.windows.get(key);
    if (!window) {
      window = [];
      this.windows.set(key, window);
    }
    while (window.length && window[0]! <= now - WINDOW_MS) window.shift();
    if (window.length >= limit) {
      const retryAfterMs = Math.max(1, window[0]! + WINDOW_MS - now);
      throw new ApiError({
        type: 'rate_limit_error',
        message: `Rate limit of ${limit} requests per minute for ${operation} reached; retry in ${Math.ceil(retryAfterMs / 1000)} s.`,
        code: 'rate_limit_exceeded',
        status: 429,
        headers: { 'retry-after': String(Math.ceil(retryAfterMs / 1000)), 'retry-after-ms': String(retryAfterMs) },
      });
    }
    window.push(now);
  }
}
