/**
 * Scores conversions against another converter's published expectations: each file's expected
 * strings (test vectors, lines and table cells of expected outputs) are looked for in DocChat's
 * markdown, compared without markdown markup, case or white space (a heading "## Abstract"
 * matches "# Abstract"; a cell matches wherever its text is; "ItemQuantity", as one converter
 * glues two cells, matches "Item Quantity"; a line wrapped differently still matches).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ExpectedSet {
  about: string;
  files: Record<string, { source: string; expect: string[] }>;
}

export interface FileScore {
  file: string;
  bytes: number;
  status: 'converted' | 'failed' | 'stopped';
  error?: string;
  expected: number;
  missing: string[];
  ms: number;
}

export type Convert = (filename: string, data: Uint8Array) => Promise<string>;

/** Text as compared: no markdown markup, quotes or dashes of one kind, lower case, no white space. */
export function comparable(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[–—]/g, '-')
    .replace(/[*_`#|>[\]()"\\]/g, ' ')
    .replace(/\s+/g, '')
    .toLowerCase();
}

export function missingItems(markdown: string, expect: readonly string[]): string[] {
  const text = comparable(markdown);
  return expect.filter((item) => !text.includes(comparable(item)));
}

/** Every file under `dir` (recursively), by base name. */
export function filesUnder(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) {
        if (name !== 'expected_outputs') walk(full);
      } else found.set(name, full);
    }
  };
  if (existsSync(dir)) walk(dir);
  return found;
}

/** Converts each file (bounded by `limitMs`) and scores it against its expectations. */
export async function scoreFiles(
  files: Map<string, string>,
  set: ExpectedSet,
  convert: Convert,
  limitMs: number,
  onFile: (file: string) => void = () => undefined,
): Promise<FileScore[]> {
  const scores: FileScore[] = [];
  for (const [file, full] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    onFile(file);
    const data = readFileSync(full);
    const expect = set.files[file]?.expect ?? [];
    const start = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const markdown = await Promise.race([
        convert(file, data),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error(`no result after ${limitMs / 1000} s`), { stopped: true })), limitMs);
        }),
      ]);
      scores.push({
        file,
        bytes: data.length,
        status: 'converted',
        expected: expect.length,
        missing: missingItems(markdown, expect),
        ms: performance.now() - start,
      });
    } catch (error) {
      const stopped = (error as { stopped?: boolean }).stopped;
      scores.push({
        file,
        bytes: data.length,
        status: stopped ? 'stopped' : 'failed',
        error: (error as Error)?.message ?? String(error),
        expected: expect.length,
        missing: [...expect],
        ms: performance.now() - start,
      });
    } finally {
      clearTimeout(timer);
    }
  }
  return scores;
}
