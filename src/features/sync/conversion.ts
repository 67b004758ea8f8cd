/**
 * How a folder sync's uploads are converted: `docchat.attach.skipOcr` as attaching applies it, with
 * the answer a followed folder remembers. Plain TypeScript (no `vscode`).
 */
import { conversionChoice } from '../../common/conversionChoice';
import type { SkipOcrMode } from '../../services/settingsModel';
import type { Follow } from './follows';
import type { SyncPlan } from './planner';

/** The workspace-relative paths of the files a plan uploads (new files and new versions). */
export function uploadedPaths(plan: SyncPlan): string[] {
  return [...plan.upload, ...plan.replace.filter((r) => !r.current).map((r) => r.local)].map((f) => f.path);
}

export interface SyncConversionQuestion {
  mode: SkipOcrMode;
  follow: Follow;
  plan: SyncPlan;
  /** The user started this sync (a command); a sync a saved file or a reload started never asks. */
  interactive: boolean;
  /** Asks the user (the question attaching asks); undefined: dismissed. */
  ask(): Promise<boolean | undefined>;
}

/**
 * Whether the sync skips OCR, and the follow to save when the user was asked (it remembers the
 * answer for the folder's later syncs); undefined when the user dismissed the question (the sync stops).
 */
export async function chooseSyncConversion(q: SyncConversionQuestion): Promise<{ skipOcr: boolean; follow: Follow } | undefined> {
  const choice = conversionChoice({
    mode: q.mode,
    names: uploadedPaths(q.plan),
    remembered: q.follow.skipOcr,
    canAsk: q.interactive,
  });
  if (choice !== 'ask') return { skipOcr: choice, follow: q.follow };
  const skipOcr = await q.ask();
  return skipOcr === undefined ? undefined : { skipOcr, follow: { ...q.follow, skipOcr } };
}
