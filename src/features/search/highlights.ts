/**
 * How long a passage stays highlighted after a citation or a search result opened it: until the
 * document is edited, the user moves the cursor or presses Escape, or a few seconds have passed,
 * like VS Code's own "go to" highlight. Then the editor shows the user's selection again.
 * No `vscode` import: the rules are unit-tested with manual timers.
 */
import { realTimers, type Timers } from '../../common/timers';

/** How long a highlight stays when nothing else clears it. */
export const HIGHLIGHT_MS = 5000;

/** What an answer quoted of a passage: highlighted instead of the whole passage when found in it. */
export interface QuoteFocus {
  quotes: string[];
  /** The quote to scroll to (the citation clicked); the first one without. */
  index?: number;
  /**
   * The search that found the passage: with no quotes, the whole passage is highlighted and the
   * view scrolls to its sentence that best meets the query (`bestSentenceFor`).
   */
  query?: string;
}

export class PassageHighlights {
  /** Passage text (and the quotes of it to show) by document uri, with the timer that clears it. */
  private readonly shown = new Map<string, { passage: string; focus?: QuoteFocus; timer: unknown }>();

  constructor(
    /** Told when a document's highlight is gone (to clear the decoration and the context key). */
    private readonly onCleared: (uri: string, anyLeft: boolean) => void,
    private readonly timers: Timers = realTimers,
    private readonly lifetimeMs = HIGHLIGHT_MS,
  ) {}

  /** Highlights `passage`, or the quotes of it in `focus`, in the document `uri` (again: the timer starts over). */
  show(uri: string, passage: string, focus?: QuoteFocus): void {
    const previous = this.shown.get(uri);
    if (previous) this.timers.clearTimeout(previous.timer);
    const quotes = focus?.quotes.filter((q) => q.trim()) ?? [];
    const query = focus?.query?.trim();
    this.shown.set(uri, {
      passage,
      ...(quotes.length || query
        ? { focus: { quotes, ...(focus?.index !== undefined ? { index: focus.index } : {}), ...(query ? { query } : {}) } }
        : {}),
      timer: this.timers.setTimeout(() => this.clear(uri), this.lifetimeMs),
    });
  }

  /** The passage highlighted in `uri`, if any. */
  passage(uri: string): string | undefined {
    return this.shown.get(uri)?.passage;
  }

  /** The quotes of the passage highlighted in `uri`, when it was opened from an answer that quoted it. */
  focus(uri: string): QuoteFocus | undefined {
    return this.shown.get(uri)?.focus;
  }

  get any(): boolean {
    return this.shown.size > 0;
  }

  /** The document was edited. */
  edited(uri: string): void {
    this.clear(uri);
  }

  /** The selection changed; only the user's own moves (keyboard, mouse) clear the highlight. */
  selectionChanged(uri: string, byUser: boolean): void {
    if (byUser) this.clear(uri);
  }

  /** Escape, or the document closed: `uri`'s highlight, or every one. */
  clear(uri?: string): void {
    for (const key of uri === undefined ? [...this.shown.keys()] : [uri]) {
      const entry = this.shown.get(key);
      if (!entry) continue;
      this.timers.clearTimeout(entry.timer);
      this.shown.delete(key);
      this.onCleared(key, this.shown.size > 0);
    }
  }

  dispose(): void {
    for (const entry of this.shown.values()) this.timers.clearTimeout(entry.timer);
    this.shown.clear();
  }
}
