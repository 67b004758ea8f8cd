/**
 * Command links that open a passage from `@docchat`'s responses. A link carries a small
 * reference (store, file, file name and the number of the passage this window listed), never
 * the passage's text: VS Code's Chat reads a response's markdown, links included, to screen
 * readers, and a link's address must not end early at a character of the text.
 */
import type { PassageSource } from '../../chatCore/protocol';
import { passageOf, type Passage, type QuoteFocus } from '../search';

/** What a link to a passage carries. */
export interface PassageRef {
  store: string;
  file: string;
  name?: string;
  storeName?: string;
  /** The passage's key among those this window listed (its text is kept here, not in the link). */
  passage?: string;
}

/**
 * The passage a link opens: its text when this window listed it, else the file from its start;
 * with what to scroll to (the search's query, or the answer's quotes of it) when it was listed so.
 */
export interface OpenablePassage {
  passage: Passage;
  focus?: QuoteFocus;
}

/** The passages the links of this window refer to: the oldest are forgotten past this many. */
export const REMEMBERED_PASSAGES = 500;

/**
 * The argument list of a `command:` link, fully escaped: `encodeURIComponent` leaves
 * `( ) ' ! *` as they are, and a `)` ends a markdown link's address.
 */
export function commandArgs(args: readonly unknown[]): string {
  return encodeURIComponent(JSON.stringify(args)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export class PassageLinks {
  private readonly remembered = new Map<string, OpenablePassage>();
  /** Keys of another window (a response the chat kept from before a reload) are never this window's. */
  private readonly window = Math.random().toString(36).slice(2, 8);
  private next = 1;

  /**
   * The reference a link to `p` carries; the passage is remembered for the link's click, with
   * `focus`: what to scroll to once it is open.
   */
  refer(p: PassageSource, focus?: QuoteFocus): PassageRef {
    const passage = `${this.window}-${this.next++}`;
    this.remembered.set(passage, {
      passage: passageOf(p),
      ...(focus ? { focus } : {}),
    });
    for (const oldest of this.remembered.keys()) {
      if (this.remembered.size <= REMEMBERED_PASSAGES) break;
      this.remembered.delete(oldest);
    }
    return {
      store: p.storeId,
      file: p.fileId,
      ...(p.filename ? { name: p.filename } : {}),
      ...(p.storeName ? { storeName: p.storeName } : {}),
      passage,
    };
  }

  /** The passage a clicked link opens; undefined when the argument is no passage reference. */
  resolve(ref: unknown): OpenablePassage | undefined {
    if (!ref || typeof ref !== 'object') return undefined;
    const r = ref as Partial<PassageRef>;
    if (typeof r.store !== 'string' || typeof r.file !== 'string') return undefined;
    const known = typeof r.passage === 'string' ? this.remembered.get(r.passage) : undefined;
    if (known && known.passage.storeId === r.store && known.passage.fileId === r.file) return known;
    // A response of an earlier window (the chat keeps them): the file, from its start.
    return {
      passage: {
        storeId: r.store,
        storeName: typeof r.storeName === 'string' ? r.storeName : '',
        fileId: r.file,
        filename: typeof r.name === 'string' ? r.name : r.file,
        content: '',
        score: 0,
      },
    };
  }
}
