/**
 * Timestamps from a service, in milliseconds. The API contract does not say whether `created_at`
 * and `expires_at` are seconds or milliseconds; DocChat reads seconds, except that a value of
 * 10^11 or more would be past the year 5000 as seconds, so it is read as milliseconds (a service
 * that sends `Date.now()`). Every place that shows or compares a service's date goes through here.
 */
export const MILLISECONDS_FROM = 1e11;

/** The instant in ms since the epoch, or undefined for a missing or non-finite value. */
export function timestampMs(value: number | null | undefined): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return Math.abs(value) >= MILLISECONDS_FROM ? value : value * 1000;
}
