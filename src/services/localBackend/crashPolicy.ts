/**
 * What to do when the local backend stops without being asked to, shaped like the language
 * server client's `DefaultErrorHandler` (vscode-languageclient): restart after a crash, and stop
 * restarting after five crashes within three minutes, with one message for the user. Plain
 * TypeScript with an injected clock, so the policy is tested without waiting.
 */
import * as l10n from '@vscode/l10n';

export const MAX_CRASHES = 5;
export const CRASH_WINDOW_MS = 3 * 60_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;

export type CrashDecision =
  /** Start the backend again after `delayMs` (doubling with each crash in the window). */
  | { readonly action: 'restart'; readonly delayMs: number; readonly crashes: number }
  /** Give up: `message` says so to the user, once. */
  | { readonly action: 'stop'; readonly message: string; readonly crashes: number };

export class CrashPolicy {
  /** When each crash inside the window happened, oldest first. */
  private readonly crashes: number[] = [];

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxCrashes = MAX_CRASHES,
    private readonly windowMs = CRASH_WINDOW_MS,
  ) {}

  /** Records a crash and decides. `logFile` is named in the message that ends the restarts. */
  crashed(logFile: string): CrashDecision {
    const now = this.now();
    this.crashes.push(now);
    while (this.crashes.length && this.crashes[0]! < now - this.windowMs) this.crashes.shift();
    const crashes = this.crashes.length;
    if (crashes >= this.maxCrashes) {
      const minutes = Math.round(this.windowMs / 60_000);
      return {
        action: 'stop',
        crashes,
        message: l10n.t(
          'The local DocChat backend stopped {0} times within {1} minutes, so it is not restarted again. See the DocChat output and {2}.',
          crashes,
          minutes,
          logFile,
        ),
      };
    }
    return { action: 'restart', crashes, delayMs: Math.min(FIRST_BACKOFF_MS * 2 ** (crashes - 1), MAX_BACKOFF_MS) };
  }

  /** Forgets past crashes: the user asked for the backend again (a new start). */
  reset(): void {
    this.crashes.length = 0;
  }
}
