/** What the Find People by Skill picker shows for a skillshare result. No `vscode` import. */
import * as l10n from '@vscode/l10n';
import type { SkillResult } from '../../api/gateway/schemas';

export interface PersonItem {
  readonly label: string;
  readonly description: string;
  readonly detail: string;
  /** The skillshare link when it is an http(s) URL; other schemes are never opened. */
  readonly link: string | undefined;
}

export function webLink(link: string): string | undefined {
  try {
    const url = new URL(link.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function personItem(result: SkillResult): PersonItem {
  const terms = result.top_match_terms.filter((t) => t.trim());
  return {
    label: result.name || l10n.t('Unnamed person'),
    description: terms.length ? l10n.t('matches: {0}', terms.join(', ')) : '',
    detail: result.information.filter((i) => i.trim()).join(' · '),
    link: webLink(result.skillshare_link),
  };
}
