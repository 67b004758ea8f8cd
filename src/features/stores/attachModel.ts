/**
 * Pure rules of the attach flow (no `vscode` import): which files may benefit from OCR, how a
 * dropped uri list is read, and what the user is told at the end.
 */
import * as l10n from '@vscode/l10n';
import type { VectorStoreFile } from '../../api/documents/schemas';
import { realTimers, type Timers } from '../../common/timers';

export { conversionChoice, mayUseOcr } from '../../common/conversionChoice';

/** How long conversion has run: "12 s", "2 min 5 s" (whole seconds, counted up). */
export function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return l10n.t('{0} s', seconds);
  return l10n.t('{0} min {1} s', Math.floor(seconds / 60), seconds % 60);
}

/**
 * The progress line while attached files convert: the service tells no progress of a conversion,
 * so the line says how many files are converting and for how long, to show the wait is alive.
 */
export function convertingMessage(converting: number, elapsedMs: number): string {
  return converting === 1
    ? l10n.t('converting… {0}', elapsedText(elapsedMs))
    : l10n.t('converting {0} files… {1}', converting, elapsedText(elapsedMs));
}

/** Calls `tick` now and then once a second until disposed, with one timer at a time. */
export function everySecond(tick: () => void, timers: Timers = realTimers): { dispose(): void } {
  let handle: unknown;
  let disposed = false;
  const run = () => {
    if (disposed) return;
    tick();
    handle = timers.setTimeout(run, 1_000);
  };
  run();
  return {
    dispose() {
      disposed = true;
      timers.clearTimeout(handle);
    },
  };
}

/** The lines of a `text/uri-list` (RFC 2483): comments and blank lines dropped. */
export function parseUriList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

export interface AttachOutcome {
  filename: string;
  file?: VectorStoreFile;
  /** Set when the upload or the attach request itself failed. */
  error?: string;
  /** The user cancelled before the file finished. */
  cancelled?: boolean;
}

export interface AttachSummary {
  level: 'info' | 'warning' | 'error';
  message: string;
}

/** One message for the whole run; a failed conversion quotes its `last_error`. */
export function summarizeAttach(storeName: string, outcomes: readonly AttachOutcome[]): AttachSummary {
  const completed = outcomes.filter((o) => o.file?.status === 'completed');
  const failed = outcomes.filter(
    (o) => o.error || (o.file && o.file.status !== 'completed' && o.file.status !== 'in_progress' && !o.cancelled),
  );
  const pending = outcomes.filter((o) => !o.error && o.file?.status === 'in_progress');
  /** Stopped before the file was attached: nothing happens on the service. */
  const cancelled = outcomes.filter((o) => !o.error && o.cancelled && !o.file);
  const reason = (o: AttachOutcome) => o.error ?? o.file?.last_error ?? `status ${o.file?.status ?? 'unknown'}`;
  if (outcomes.length === 1) {
    const [o] = outcomes as [AttachOutcome];
    if (completed.length) {
      return { level: 'info', message: l10n.t('attached "{0}" to "{1}".', o.filename, storeName) };
    }
    if (failed.length) {
      return { level: 'error', message: l10n.t('"{0}" could not be attached to "{1}": {2}', o.filename, storeName, reason(o)) };
    }
    if (cancelled.length) {
      return { level: 'warning', message: l10n.t('attaching "{0}" to "{1}" was cancelled.', o.filename, storeName) };
    }
    return {
      level: 'warning',
      message: l10n.t('"{0}" is still being converted in "{1}"; the tree shows when it is done.', o.filename, storeName),
    };
  }
  const parts = [`${completed.length} of ${outcomes.length} files attached to "${storeName}"`];
  if (pending.length) {
    parts.push(`${pending.length} still converting`);
  }
  if (cancelled.length) {
    parts.push(`${cancelled.length} cancelled`);
  }
  // A sentence every failure ends with (the converter's list of supported types) is said once, after the list.
  const shared = new Set<string>();
  const shortReason = (o: AttachOutcome) =>
    reason(o)
      .replace(SHARED_TAIL, (_match, tail: string) => (shared.add(tail), ''))
      .replace(/\.$/, '');
  if (failed.length) {
    parts.push(`${failed.length} failed (${failed.map((o) => `"${o.filename}": ${shortReason(o)}`).join('; ')})`);
  }
  const level = failed.length ? 'error' : pending.length || cancelled.length ? 'warning' : 'info';
  const tails = [...shared].map((tail) => ` ${tail.charAt(0).toUpperCase()}${tail.slice(1)}.`).join('');
  return { level, message: `${parts.join(', ')}.${tails}` };
}

/** `; supported: …` at the end of a conversion error (src/backend/convert/detect.ts). */
const SHARED_TAIL = /;\s*(supported: [^;]*?)\.?$/;
