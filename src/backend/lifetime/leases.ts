/**
 * Window leases: every editor window that uses the backend renews a lease; once the last lease is
 * released or has expired, the backend waits `idleExitMs` more and then asks to stop.
 */
export interface LeaseOptions {
  /** How long the backend stays up after its last lease is gone (and after start without any). */
  idleExitMs: number;
  /** A lease not renewed within this time counts as gone (a window killed without goodbye). */
  defaultTtlMs: number;
  /** Called once when the idle time has passed. */
  onIdle(): void;
}

export class Leases {
  private readonly expiries = new Map<string, number>();
  private lastGone = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private fired = false;

  constructor(private readonly options: LeaseOptions) {
    this.schedule();
  }

  get count(): number {
    return this.expiries.size;
  }

  renew(id: string, ttlMs = this.options.defaultTtlMs): void {
    this.expiries.set(id, Date.now() + ttlMs);
    this.schedule();
  }

  release(id: string): void {
    if (this.expiries.delete(id)) this.lastGone = Date.now();
    this.schedule();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.fired = true;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.fired) return;
    const now = Date.now();
    for (const [id, expiry] of this.expiries) {
      if (expiry <= now) {
        this.expiries.delete(id);
        this.lastGone = Math.max(this.lastGone, expiry);
      }
    }
    if (this.expiries.size) {
      const next = Math.min(...this.expiries.values());
      this.timer = setTimeout(() => this.schedule(), next - now + 1);
      return;
    }
    const exitAt = this.lastGone + this.options.idleExitMs;
    if (exitAt <= now) {
      this.fired = true;
      this.options.onIdle();
      return;
    }
    this.timer = setTimeout(() => this.schedule(), exitAt - now + 1);
  }
}
