/** Small statistics and formatting helpers shared by the benchmarks. */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) of a non-empty sample. */
export function percentile(values: readonly number[], p: number): number {
  const s = sorted(values);
  if (!s.length) return Number.NaN;
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[rank]!;
}

export function median(values: readonly number[]): number {
  const s = sorted(values);
  if (!s.length) return Number.NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function summarize(values: readonly number[]): Summary {
  const s = sorted(values);
  return { median: median(s), min: s[0] ?? Number.NaN, max: s[s.length - 1] ?? Number.NaN, n: s.length };
}

/** Milliseconds with a precision that suits their size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  // By size, so a difference below zero reads like one above it.
  const size = Math.abs(value);
  if (size >= 100) return value.toFixed(0);
  if (size >= 10) return value.toFixed(1);
  if (size >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function mb(bytes: number): string {
  return Number.isFinite(bytes) ? (bytes / (1024 * 1024)).toFixed(1) : 'n/a';
}

export function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

export function ratio(value: number, base: number): string {
  return Number.isFinite(value) && Number.isFinite(base) && base > 0 ? `${(value / base).toFixed(2)}×` : 'n/a';
}

/** "yes" or "**NO**" so a missed goal stands out in the table. */
export function goal(met: boolean): string {
  return met ? 'yes' : '**NO**';
}

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
