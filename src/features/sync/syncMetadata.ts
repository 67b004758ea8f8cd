/**
 * The two metadata pairs that tie a store file to a workspace file. Plain TypeScript (no `vscode`)
 * so the planner, the benchmarks and the tests share it.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../../api/documents/limits';

export const PATH_KEY = 'docchat_path';
export const HASH_KEY = 'docchat_sha256';

const MAX_VALUE = LIMITS.metadata.maxValueLength;
/** Code points of a long path kept readable before the `…#<sha256>` tail. */
const LONG_PATH_HEAD = MAX_VALUE - 1 - 1 - 64 - 6;

/** Paths compare in NFC with `/` separators, so a macOS (NFD) and a Linux checkout agree. */
export function normalizePath(relativePath: string): string {
  return relativePath.replace(/\\/g, '/').normalize('NFC');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The metadata value for a workspace-relative path. A path longer than the 512-character value
 * limit keeps its first characters and ends with `…#` and the SHA-256 of the whole path, so two
 * long paths never share a value and the value stays within the limit.
 */
export function encodePath(relativePath: string): string {
  const path = normalizePath(relativePath);
  const codePoints = Array.from(path);
  if (codePoints.length <= MAX_VALUE) return path;
  return `${codePoints.slice(0, LONG_PATH_HEAD).join('')}…#${sha256Hex(path)}`;
}

/** The full path when the value holds it, undefined for a shortened long path. */
export function decodePath(value: string): string | undefined {
  return /…#[0-9a-f]{64}$/.test(value) && Array.from(value).length > LONG_PATH_HEAD ? undefined : value;
}

export function syncMetadata(relativePath: string, hash: string): Record<string, string> {
  return { [PATH_KEY]: encodePath(relativePath), [HASH_KEY]: hash };
}
