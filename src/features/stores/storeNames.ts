/** Store names as the documents service takes them. No `vscode` import (unit-tested). */
import { LIMITS } from '../../api/documents/limits';

/**
 * A store name made of any text (a folder's name, what someone typed): accents dropped ("é" → "e"),
 * every run of characters a name cannot hold (spaces, dots, other scripts) one hyphen, no hyphen at
 * either end, at most the API's 63 characters. Empty when nothing of the text can stay.
 */
export function storeNameLike(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .slice(0, LIMITS.storeName.max)
    .replace(/^-+|-+$/g, '');
}
