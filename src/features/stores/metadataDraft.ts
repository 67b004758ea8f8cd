/**
 * The key/value pairs being edited in the metadata quick-input editor. Enforces the documented
 * limits (from src/api/documents/limits.ts) as the user types; a rejected entry changes nothing.
 * No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { LIMITS } from '../../api/documents/limits';
import type * as DocumentsSchemas from '../../api/documents/schemas';
import { charCount } from '../../api/http/validate';
import { atFirstUse } from '../../common/atFirstUse';

/** The final check is zod's: it loads with the first pair entered, not when DocChat activates. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const schemas = atFirstUse(() => require('../../api/documents/schemas') as typeof DocumentsSchemas);

export type Metadata = Record<string, string>;

export interface EntryProblem {
  message: string;
  /** A warning still lets the entry be accepted (e.g. replacing an existing key). */
  severity: 'error' | 'warning';
}

export type ParsedEntry = { key: string; value: string } | { problem: EntryProblem };

const { maxPairs, maxKeyLength, maxValueLength } = LIMITS.metadata;

/** A function, not a constant: the words are looked up when shown. */
export const entryFormatHint = (): string => l10n.t('Write key=value, for example team=platform.');

export class MetadataDraft {
  private pairs: Map<string, string>;
  private readonly original: string;

  constructor(initial: Metadata = {}) {
    this.pairs = new Map(Object.entries(initial));
    this.original = JSON.stringify([...this.pairs]);
  }

  get size(): number {
    return this.pairs.size;
  }

  entries(): [string, string][] {
    return [...this.pairs];
  }

  get(key: string): string | undefined {
    return this.pairs.get(key);
  }

  get isDirty(): boolean {
    return JSON.stringify([...this.pairs]) !== this.original;
  }

  get isFull(): boolean {
    return this.pairs.size >= maxPairs;
  }

  toObject(): Metadata {
    return Object.fromEntries(this.pairs);
  }

  /**
   * Checks a `key=value` entry. `editing` is the key of the pair being edited (renaming it is
   * allowed and does not count against the pair limit).
   */
  parse(text: string, editing?: string): ParsedEntry {
    const at = text.indexOf('=');
    if (at < 0) {
      return problem(text.trim() ? l10n.t('Missing "=". {0}', entryFormatHint()) : entryFormatHint());
    }
    const key = text.slice(0, at).trim();
    const value = text.slice(at + 1);
    if (!key) {
      return problem(l10n.t('The key must not be empty.'));
    }
    const keyLength = charCount(key);
    if (keyLength > maxKeyLength) {
      return problem(l10n.t('Keys may be at most {0} characters (this one has {1}).', maxKeyLength, keyLength));
    }
    const valueLength = charCount(value);
    if (valueLength > maxValueLength) {
      return problem(l10n.t('Values may be at most {0} characters (this one has {1}).', maxValueLength, valueLength));
    }
    const isNewKey = !this.pairs.has(key) && key !== editing;
    const renaming = editing !== undefined && this.pairs.has(editing);
    if (isNewKey && !renaming && this.pairs.size >= maxPairs) {
      return problem(l10n.t('Metadata may have at most {0} pairs; remove one before adding another.', maxPairs));
    }
    return { key, value };
  }

  /** A message for the input box (undefined when the entry is fine). */
  validate(text: string, editing?: string): EntryProblem | undefined {
    const parsed = this.parse(text, editing);
    if ('problem' in parsed) {
      return parsed.problem;
    }
    if (this.pairs.has(parsed.key) && parsed.key !== editing) {
      return { message: l10n.t('"{0}" is already set; Enter replaces its value.', parsed.key), severity: 'warning' };
    }
    return undefined;
  }

  /** Applies an entry; returns the problem and changes nothing when it is not acceptable. */
  apply(text: string, editing?: string): EntryProblem | undefined {
    const parsed = this.parse(text, editing);
    if ('problem' in parsed) {
      return parsed.problem;
    }
    const next = new Map<string, string>();
    for (const [k, v] of this.pairs) {
      if (k === editing) {
        next.set(parsed.key, parsed.value);
      } else if (k !== parsed.key) {
        next.set(k, v);
      } else if (editing === undefined || editing === k) {
        next.set(k, parsed.value);
      }
    }
    if (!next.has(parsed.key)) {
      next.set(parsed.key, parsed.value);
    }
    // The schema's own check is the last word (same rules the client enforces before sending).
    const finalProblem = schemas().validateMetadata(Object.fromEntries(next));
    if (finalProblem) {
      return { message: finalProblem, severity: 'error' };
    }
    this.pairs = next;
    return undefined;
  }

  remove(key: string): void {
    this.pairs.delete(key);
  }
}

function problem(message: string): ParsedEntry {
  return { problem: { message, severity: 'error' } };
}

/** `key=value` as shown and pre-filled in the input box. */
export function formatEntry(key: string, value: string): string {
  return `${key}=${value}`;
}

/** The notice after saving a file's metadata (`store`: the name of the store whose pairs of the file were saved). */
export function metadataSavedMessage(count: number, name: string, store?: string): string {
  if (count === 0) {
    return store !== undefined
      ? l10n.t('DocChat: cleared the metadata of "{0}" in the vector store "{1}".', name, store)
      : l10n.t('DocChat: cleared the metadata of the file "{0}".', name);
  }
  if (count === 1) {
    return store !== undefined
      ? l10n.t('DocChat: saved 1 metadata pair of "{0}" in the vector store "{1}".', name, store)
      : l10n.t('DocChat: saved 1 metadata pair of the file "{0}".', name);
  }
  return store !== undefined
    ? l10n.t('DocChat: saved {0} metadata pairs of "{1}" in the vector store "{2}".', count, name, store)
    : l10n.t('DocChat: saved {0} metadata pairs of the file "{1}".', count, name);
}
