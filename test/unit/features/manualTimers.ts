import type { Timers } from '../../../src/features/stores/poller';

/** Timers that fire only when the test says so, so no test depends on the wall clock. */
export class ManualTimers implements Timers {
  private next = 1;
  private readonly pending = new Map<number, { callback: () => void; ms: number }>();

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { callback, ms });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  get count(): number {
    return this.pending.size;
  }

  /** Delays of the timers still pending, in creation order. */
  delays(): number[] {
    return [...this.pending.values()].map((t) => t.ms);
  }

  /** Fires every pending timer once (timers they schedule stay pending). */
  fireAll(): void {
    const due = [...this.pending.entries()];
    for (const [id] of due) {
      this.pending.delete(id);
    }
    for (const [, timer] of due) {
      timer.callback();
    }
  }
}

/** Lets promise callbacks (and one round of I/O) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Waits until the condition holds, checking after each turn of the event loop (bounded by turns, not time). */
export async function until(condition: () => boolean, turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition never became true');
}
