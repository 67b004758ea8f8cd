import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';

export interface RateLimitWait {
  /** The client's operation name, e.g. `search` or `createVectorStore`. */
  readonly operation: string;
  readonly waitMs: number;
  /** Epoch milliseconds at which the wait ends. */
  readonly until: number;
}

/**
 * Collects the waits the clients report (their own limiters via `onRateLimitWait`, and the
 * server's 429 answers via `RateLimitError`) so the status bar and the search picker can say so.
 */
export class RateLimitMonitor extends Disposable {
  private readonly waits = new Map<string, RateLimitWait>();
  private readonly _onDidChange = this._register(new vscode.EventEmitter<RateLimitWait>());
  readonly onDidChange = this._onDidChange.event;

  /** `now`: the clock waits are measured on (tests drive one). */
  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  report(operation: string, waitMs: number): void {
    if (!(waitMs > 0)) {
      return;
    }
    const wait: RateLimitWait = { operation, waitMs, until: this.now() + waitMs };
    const known = this.waits.get(operation);
    if (!known || known.until < wait.until) {
      this.waits.set(operation, wait);
    }
    this._onDidChange.fire(wait);
  }

  /** The longest wait still running, if any. */
  current(now = this.now()): RateLimitWait | undefined {
    let longest: RateLimitWait | undefined;
    for (const [operation, wait] of this.waits) {
      if (wait.until <= now) {
        this.waits.delete(operation);
      } else if (!longest || wait.until > longest.until) {
        longest = wait;
      }
    }
    return longest;
  }

  /** When the running wait of one operation ends (epoch ms), if it waits. */
  until(operation: string, now = this.now()): number | undefined {
    const wait = this.waits.get(operation);
    return wait && wait.until > now ? wait.until : undefined;
  }

  /** Seconds left for one operation (0 when it is not waiting). */
  secondsLeft(operation: string, now = this.now()): number {
    const wait = this.waits.get(operation);
    return wait && wait.until > now ? Math.ceil((wait.until - now) / 1000) : 0;
  }
}
