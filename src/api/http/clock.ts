import { AbortedError } from './errors';

/** Time source for backoff, polling and rate-limit waits; tests inject one that does not sleep. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function abortedError(signal: AbortSignal | undefined): AbortedError {
  const reason = signal?.reason;
  return reason instanceof AbortedError ? reason : new AbortedError(undefined, { cause: reason });
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    if (signal?.aborted) return Promise.reject(abortedError(signal));
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortedError(signal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
