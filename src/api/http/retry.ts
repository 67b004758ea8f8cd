/** Retry policy, after the official OpenAI SDKs. */

export const DEFAULT_MAX_RETRIES = 2;
export const MAX_RETRY_AFTER_MS = 60_000;
const INITIAL_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;

type HeaderValue = string | string[] | undefined;
type Headers = Record<string, HeaderValue>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `retry-after-ms` (milliseconds), else `Retry-After` (seconds or an HTTP date), in ms. */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = header(headers, 'retry-after');
  if (after !== undefined && after.trim() !== '') {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return undefined;
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || (status >= 500 && status !== 501);
}

/** The server may say so explicitly, as OpenAI's does. */
export function serverRetryHint(headers: Headers): boolean | undefined {
  const value = header(headers, 'x-should-retry');
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** Exponential backoff with up to 25 % jitter: 0.5 s, 1 s, 2 s … capped at 8 s. */
export function backoffMs(retriesSoFar: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_DELAY_MS * 2 ** retriesSoFar, MAX_BACKOFF_MS);
  return Math.round(base * (1 - random() * 0.25));
}

/**
 * How long to wait before the next attempt. The server's wait wins when it is within 60 s;
 * a longer one is returned as `tooLong` so the caller can give up and report it instead.
 */
export function retryDelay(
  retriesSoFar: number,
  headers: Headers,
  random?: () => number,
  now?: number,
): { delayMs: number; serverSaid?: number; tooLong: boolean } {
  const serverSaid = parseRetryAfter(headers, now);
  if (serverSaid !== undefined) {
    if (serverSaid > MAX_RETRY_AFTER_MS) return { delayMs: serverSaid, serverSaid, tooLong: true };
    if (serverSaid > 0) return { delayMs: serverSaid, serverSaid, tooLong: false };
  }
  return { delayMs: backoffMs(retriesSoFar, random), serverSaid, tooLong: false };
}
