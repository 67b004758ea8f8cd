/**
 * Follows store files that are still being converted: each is polled with exponential backoff
 * until its status is terminal, and only while the tree is visible. No `vscode` import.
 */
import type { VectorStoreFile } from '../../api/documents/schemas';
import { realTimers, type Timers } from '../../common/timers';
import { isTerminalStatus } from './presentation';

export { realTimers, type Timers } from '../../common/timers';

export interface PollerOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
}

export const DEFAULT_POLLER_OPTIONS: PollerOptions = { initialDelayMs: 1_000, maxDelayMs: 30_000, factor: 2 };

export interface PollerCallbacks {
  fetch(storeId: string, fileId: string): Promise<VectorStoreFile>;
  onUpdate(storeId: string, file: VectorStoreFile): void;
  /** The file can no longer be polled (deleted, or the store is gone). */
  onGone(storeId: string, fileId: string, error: unknown): void;
  /** A poll failed for another reason; polling continues with backoff. */
  onError?(storeId: string, fileId: string, error: unknown): void;
}

interface Entry {
  storeId: string;
  fileId: string;
  delayMs: number;
  timer: unknown;
  polling: boolean;
}

const key = (storeId: string, fileId: string) => `${storeId}\u0000${fileId}`;

export class StatusPoller {
  private readonly entries = new Map<string, Entry>();
  private active = false;

  constructor(
    private readonly callbacks: PollerCallbacks,
    private readonly options: PollerOptions = DEFAULT_POLLER_OPTIONS,
    private readonly timers: Timers = realTimers,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  isTracking(storeId: string, fileId: string): boolean {
    return this.entries.has(key(storeId, fileId));
  }

  /** Starts following a file (no-op when already followed). */
  track(storeId: string, fileId: string): void {
    const k = key(storeId, fileId);
    if (this.entries.has(k)) {
      return;
    }
    const entry: Entry = { storeId, fileId, delayMs: this.options.initialDelayMs, timer: undefined, polling: false };
    this.entries.set(k, entry);
    this.schedule(entry, entry.delayMs);
  }

  untrack(storeId: string, fileId: string): void {
    const k = key(storeId, fileId);
    const entry = this.entries.get(k);
    if (entry) {
      this.cancelTimer(entry);
      this.entries.delete(k);
    }
  }

  untrackStore(storeId: string): void {
    for (const entry of [...this.entries.values()]) {
      if (entry.storeId === storeId) {
        this.untrack(entry.storeId, entry.fileId);
      }
    }
  }

  clear(): void {
    for (const entry of this.entries.values()) {
      this.cancelTimer(entry);
    }
    this.entries.clear();
  }

  /** Polling runs only while active (the view is visible); becoming visible polls soon. */
  setActive(active: boolean): void {
    if (this.active === active) {
      return;
    }
    this.active = active;
    for (const entry of this.entries.values()) {
      if (active) {
        this.schedule(entry, Math.min(entry.delayMs, this.options.initialDelayMs));
      } else {
        this.cancelTimer(entry);
      }
    }
  }

  private schedule(entry: Entry, delayMs: number): void {
    if (!this.active || entry.polling || entry.timer !== undefined) {
      return;
    }
    entry.timer = this.timers.setTimeout(() => {
      entry.timer = undefined;
      void this.poll(entry);
    }, delayMs);
  }

  private cancelTimer(entry: Entry): void {
    if (entry.timer !== undefined) {
      this.timers.clearTimeout(entry.timer);
      entry.timer = undefined;
    }
  }

  private async poll(entry: Entry): Promise<void> {
    const k = key(entry.storeId, entry.fileId);
    entry.polling = true;
    try {
      const file = await this.callbacks.fetch(entry.storeId, entry.fileId);
      if (this.entries.get(k) !== entry) {
        return;
      }
      this.callbacks.onUpdate(entry.storeId, file);
      if (isTerminalStatus(file.status)) {
        this.entries.delete(k);
        return;
      }
    } catch (error) {
      if (this.entries.get(k) !== entry) {
        return;
      }
      if (isGone(error)) {
        this.entries.delete(k);
        this.callbacks.onGone(entry.storeId, entry.fileId, error);
        return;
      }
      this.callbacks.onError?.(entry.storeId, entry.fileId, error);
    } finally {
      entry.polling = false;
    }
    entry.delayMs = Math.min(entry.delayMs * this.options.factor, this.options.maxDelayMs);
    this.schedule(entry, entry.delayMs);
  }
}

function isGone(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { kind?: unknown }).kind === 'not_found';
}
