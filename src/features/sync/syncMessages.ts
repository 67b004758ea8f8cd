/**
 * The sentences a folder sync shows: the plan in its confirmation, the progress, the outcome.
 * Plain text (no `vscode`), so each is unit-tested; the dialogs that show them are in `confirm.ts`,
 * `act.ts` and `finish.ts`.
 */
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { formatDuration, rateLimitText } from './eta';
import type { SyncPlan } from './planner';
import type { RunSummary, SyncProgress } from './runner';
import type { RemoveDeleted } from '../../services/config';

/** How many plan lines the confirmation lists per kind. */
export const PLAN_SAMPLE = 5;

function sample(label: string, paths: string[]): string[] {
  if (!paths.length) return [];
  const shown = paths.slice(0, PLAN_SAMPLE).map((p) => `  ${p}`);
  if (paths.length > PLAN_SAMPLE) shown.push(`  ${l10n.t('… and {0} more', paths.length - PLAN_SAMPLE)}`);
  return [label, ...shown];
}

/** Files of the folder a sync leaves out, as the plan step found them. */
export interface LeftOut {
  /** Of a type DocChat cannot convert. */
  unsupported: readonly string[];
  unreadable: readonly { path: string; error: string }[];
}

const AUDIO = new Set(['.mp3', '.wav', '.m4a', '.aac', '.flac', '.ogg', '.oga', '.opus', '.wma', '.aif', '.aiff', '.mid', '.midi']);
const VIDEO = new Set(['.mp4', '.m4v', '.mov', '.avi', '.mkv', '.webm', '.wmv', '.flv', '.mpg', '.mpeg', '.3gp']);

/** Why a file of a type DocChat cannot convert is left out ("audio is not supported"). */
export function unsupportedReason(file: string): string {
  const ext = path.posix.extname(file).toLowerCase();
  if (AUDIO.has(ext)) return l10n.t('audio is not supported');
  if (VIDEO.has(ext)) return l10n.t('video is not supported');
  if (ext) return l10n.t('{0} files are not supported', ext);
  return l10n.t('files without an extension are not supported');
}

/** The plan as the confirmation shows it ('' when the plan lists nothing). */
export function planDetail(plan: SyncPlan, removeDeleted: RemoveDeleted, leftOut?: LeftOut): string {
  return [
    ...sample(
      l10n.t('New:'),
      plan.upload.map((f) => f.path),
    ),
    ...sample(
      l10n.t('Changed:'),
      plan.replace.map((r) => r.local.path),
    ),
    ...sample(
      l10n.t('Renamed:'),
      plan.rename.map((r) => `${r.remote.pathKey} → ${r.local.path}`),
    ),
    ...sample(
      removeDeleted === 'never' ? l10n.t('Deleted (kept in the store):') : l10n.t('Removed:'),
      plan.remove.map((r) => r.pathKey),
    ),
    ...sample(
      l10n.t('Failed before (not retried):'),
      plan.failed.map((f) => `${f.local.path}: ${f.remote.lastError ?? f.remote.status}`),
    ),
    ...sample(
      l10n.t('Left out:'),
      [
        ...(leftOut?.unsupported ?? []).map((p) => ({ path: p, why: unsupportedReason(p) })),
        ...(leftOut?.unreadable ?? []).map((f) => ({ path: f.path, why: l10n.t('could not be read: {0}', f.error) })),
      ]
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
        .map((f) => `${f.path} (${f.why})`),
    ),
  ].join('\n');
}

/** The progress notification's line. */
export function progressMessage(p: SyncProgress): string {
  if (p.etaSeconds === undefined) return progressWithoutTime(p);
  const eta = formatDuration(p.etaSeconds);
  if (p.phase === 'converting') {
    const converting = p.converting ?? p.total - p.done;
    return converting === 1
      ? l10n.t('{0} of {1} sent · converting 1 file · about {2} left', p.done, p.total, eta)
      : l10n.t('{0} of {1} sent · converting {2} files · about {3} left', p.done, p.total, converting, eta);
  }
  if (p.waiting?.perMinute) {
    return l10n.t(
      "{0} of {1} · waiting for the service's rate limit ({2}) · about {3} left",
      p.done,
      p.total,
      rateLimitText(p.waiting.operation, p.waiting.perMinute),
      eta,
    );
  }
  if (p.waiting) return l10n.t("{0} of {1} · waiting for the service's rate limit · about {2} left", p.done, p.total, eta);
  return p.current
    ? l10n.t('{0} of {1} · {2} · about {3} left', p.done, p.total, p.current, eta)
    : l10n.t('{0} of {1} · about {2} left', p.done, p.total, eta);
}

/** The progress line before there is evidence for a time estimate. */
function progressWithoutTime(p: SyncProgress): string {
  if (p.phase === 'converting') {
    const converting = p.converting ?? p.total - p.done;
    return converting === 1
      ? l10n.t('{0} of {1} sent · converting 1 file…', p.done, p.total)
      : l10n.t('{0} of {1} sent · converting {2} files…', p.done, p.total, converting);
  }
  if (p.waiting?.perMinute) {
    return l10n.t(
      "{0} of {1} · waiting for the service's rate limit ({2})",
      p.done,
      p.total,
      rateLimitText(p.waiting.operation, p.waiting.perMinute),
    );
  }
  if (p.waiting) return l10n.t("{0} of {1} · waiting for the service's rate limit", p.done, p.total);
  return p.current ? l10n.t('{0} of {1} · {2}', p.done, p.total, p.current) : l10n.t('{0} of {1}', p.done, p.total);
}

/** What a sync did, as the parts of one sentence ("3 uploaded", "1 removed", …). */
export function outcomeParts(summary: RunSummary): string[] {
  return [
    l10n.t('{0} uploaded', summary.uploaded),
    ...(summary.renamed ? [l10n.t('{0} renamed', summary.renamed)] : []),
    l10n.t('{0} removed', summary.removed),
    ...(summary.recovered ? [l10n.t('{0} found from the interrupted sync', summary.recovered)] : []),
  ];
}

/** The warning after a sync with failed files, naming the first one when known. */
export function failureMessage(failed: number, folder: string, store: string, first: { path: string; error?: string } | undefined): string {
  if (first?.error) {
    return l10n.t('{0} file(s) of {1} could not be synced to "{2}" ({3}: {4}).', failed, folder, store, first.path, first.error);
  }
  if (first) return l10n.t('{0} file(s) of {1} could not be synced to "{2}" (first: {3}).', failed, folder, store, first.path);
  return l10n.t('{0} file(s) of {1} could not be synced to "{2}".', failed, folder, store);
}
