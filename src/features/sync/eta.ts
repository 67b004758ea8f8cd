import * as l10n from '@vscode/l10n';
import { ARRIVAL_MARGIN_MS } from '../../api/http/rateLimit';
/**
 * Honest time estimates: a sync cannot finish sooner than the rate limits allow, nor sooner than
 * the pace it has kept so far. Plain TypeScript.
 */
export type RemainingOps = Partial<
  Record<'uploadFile' | 'attachFile' | 'deleteVectorStoreFile' | 'deleteFile' | 'updateVectorStoreFileMetadata', number>
>;

/**
 * Seconds the rate limits need for `remaining` requests, when each operation's window lets
 * `perMinute` requests through a minute and the operations run side by side.
 */
export function limitFloorSeconds(remaining: RemainingOps, limits: Readonly<Record<string, number | undefined>> | false): number {
  if (!limits) return 0;
  let floor = 0;
  for (const [operation, count] of Object.entries(remaining)) {
    const perMinute = limits[operation];
    if (!count || !perMinute) continue;
    floor = Math.max(floor, (count / perMinute) * 60);
  }
  return floor;
}

/**
 * The floor of a whole sync from the start, for a server that counts requests over a sliding
 * minute: request k (0-based) of an operation can go at minute ⌊k / perMinute⌋ (each minute with
 * the second the client's limiter keeps on top of it).
 */
export function slidingWindowFloorSeconds(counts: RemainingOps, limits: Readonly<Record<string, number | undefined>>): number {
  let floor = 0;
  for (const [operation, count] of Object.entries(counts)) {
    const perMinute = limits[operation];
    if (!count || !perMinute) continue;
    floor = Math.max(floor, Math.floor((count - 1) / perMinute) * (60 + ARRIVAL_MARGIN_MS / 1000));
  }
  return floor;
}

export function estimateSeconds(options: {
  remaining: RemainingOps;
  limits: Readonly<Record<string, number | undefined>> | false;
  doneItems: number;
  remainingItems: number;
  elapsedMs: number;
  /**
   * Milliseconds left of a wait on the service's rate limit (a 429's Retry-After, or the client's
   * own limiter) that requests still to send are held by.
   */
  rateWaitMs?: number;
  /**
   * Requests of the whole sync, by operation: a server that counts a sliding minute lets the first
   * `perMinute` through at once and the next only a minute after the sync began.
   */
  totals?: RemainingOps;
}): number {
  // Only operations with requests still to send hold the sync up.
  const pending = Object.fromEntries(
    Object.entries(options.totals ?? {}).filter(([operation]) => (options.remaining[operation as keyof RemainingOps] ?? 0) > 0),
  ) as RemainingOps;
  // With the whole sync's counts, the sliding minute's floor from its start (the client's limiter
  // sends as the service counts: a minute's worth at once, the next at each minute); without them,
  // the limits' steady rate.
  const floor = options.totals
    ? options.limits
      ? Math.max(0, slidingWindowFloorSeconds(pending, options.limits) - options.elapsedMs / 1000)
      : 0
    : limitFloorSeconds(options.remaining, options.limits);
  const pace = options.doneItems > 0 ? (options.elapsedMs / 1000 / options.doneItems) * options.remainingItems : 0;
  // Nothing held by the wait goes before it ends; after it a minute's worth goes at once, and each
  // minute after that another (the client's limiter and the service count the same sliding minute).
  const wait = options.rateWaitMs && options.rateWaitMs > 0 ? options.rateWaitMs / 1000 : 0;
  const afterWait = wait && options.limits ? slidingWindowFloorSeconds(options.remaining, options.limits) : 0;
  return Math.max(floor, pace, wait + afterWait);
}

/**
 * How long the files still converting take, from the pace conversion has kept (files finished per
 * second since conversion began) applied to the files left, counting down. A finish is seen only at
 * the next look, somewhere since the look before, so a look allows a range of estimates: a
 * count-down inside that range is kept (a steady pace never makes the time left grow), one outside
 * it moves to the nearest end, and without one the middle is taken. It never grows while nothing
 * finishes; when the count-down runs out before the next file finishes, the estimate is withdrawn
 * until one does.
 *
 * A time is told only from evidence that represents the files left: two files have finished (the
 * service converts several at once, so the first finish tells how long one conversion takes, not
 * the pace), and one of them is at least as large as the middle one (by size) of those still
 * converting. Small files convert first, and their pace says little about the large ones: a
 * folder of two small files and seven large ones otherwise promised a third of the time it took,
 * then the time left jumped up as each large file finished late. Plain TypeScript, on the
 * caller's clock.
 */
export class ConversionEstimate {
  /** Files that must have finished before a time is told. */
  static readonly EVIDENCE = 2;
  private readonly total: number;
  private finished = 0;
  /** The largest file that finished converting (bytes). */
  private largestFinished = 0;
  /** Sizes of the files still converting at the last look, smallest first. */
  private converting: number[];
  private lastLook: number;
  private anchor: { at: number; seconds: number } | undefined;

  /**
   * Files whose conversion began at `startedAt` (ms, on the caller's clock): their sizes in bytes,
   * or how many they are when their sizes do not matter (then every file counts alike).
   */
  constructor(
    private readonly startedAt: number,
    files: number | readonly number[],
  ) {
    this.converting = sizesOf(files);
    this.total = this.converting.length;
    this.lastLook = startedAt;
  }

  /** A look at `now` found these files still converting: their sizes, or how many they are. */
  observe(converting: number | readonly number[], now: number): void {
    const still = sizesOf(converting);
    const left = still.length;
    const finished = this.total - left;
    const previous = this.lastLook;
    this.lastLook = Math.max(previous, now);
    if (finished <= this.finished) return;
    this.finished = finished;
    this.largestFinished = Math.max(this.largestFinished, largestGone(this.converting, still));
    this.converting = still;
    if (left <= 0 || finished < ConversionEstimate.EVIDENCE || this.largestFinished < still[Math.floor((left - 1) / 2)]!) {
      this.anchor = undefined;
      return;
    }
    // Seconds left at `now` if the latest finish was at `at`.
    const leftIf = (at: number) => (Math.max(0, at - this.startedAt) / 1000 / finished) * left - (now - at) / 1000;
    const low = leftIf(previous);
    const high = leftIf(now);
    const current = this.secondsLeft(now);
    const seconds = current === undefined ? leftIf((previous + now) / 2) : Math.min(high, Math.max(low, current));
    this.anchor = seconds > 0 ? { at: now, seconds } : undefined;
  }

  /** Seconds left at `now`, or undefined while there is no honest estimate. */
  secondsLeft(now: number): number | undefined {
    if (!this.anchor) return undefined;
    const seconds = this.anchor.seconds - (now - this.anchor.at) / 1000;
    return seconds > 0 ? seconds : undefined;
  }
}

/** Sizes smallest first; a count stands for as many files of one size. */
function sizesOf(files: number | readonly number[]): number[] {
  return typeof files === 'number' ? new Array<number>(Math.max(0, files)).fill(0) : [...files].sort((a, b) => a - b);
}

/** The largest size of `before` (smallest first) that `after` (smallest first, a part of it) no longer holds; 0 if none. */
function largestGone(before: readonly number[], after: readonly number[]): number {
  let j = after.length - 1;
  for (let i = before.length - 1; i >= 0; i--) {
    if (j >= 0 && after[j] === before[i]) j--;
    else return before[i]!;
  }
  return 0;
}

/** How the sync names an operation's requests in "30 attaches a minute". */
export function rateLimitText(operation: string, perMinute: number): string {
  switch (operation) {
    case 'attachFile':
      return l10n.t('{0} attaches a minute', perMinute);
    case 'uploadFile':
      return l10n.t('{0} uploads a minute', perMinute);
    case 'deleteVectorStoreFile':
      return l10n.t('{0} removals from a store a minute', perMinute);
    case 'deleteFile':
      return l10n.t('{0} file deletions a minute', perMinute);
    case 'updateVectorStoreFileMetadata':
      return l10n.t('{0} metadata updates a minute', perMinute);
    default:
      return l10n.t('{0} {1} requests a minute', perMinute, operation);
  }
}

/** "12 s", "3 min", "1 h 5 min"; under a second rounds up to "1 s" (read as "about 1 s left"). */
export function formatDuration(seconds: number): string {
  if (seconds < 1) return l10n.t('{0} s', 1);
  if (seconds < 60) return l10n.t('{0} s', Math.ceil(seconds));
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return l10n.t('{0} min', minutes);
  return l10n.t('{0} h {1} min', Math.floor(minutes / 60), minutes % 60);
}
