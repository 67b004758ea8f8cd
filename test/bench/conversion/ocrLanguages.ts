/**
 * OCR languages against English only, side by side in one run: right-to-left scans made from
 * Docling's Arabic and Persian PDFs (each page rasterized by poppler's pdftoppm, as a scanner
 * would give it) scored for word recall and reading order against Docling's expected markdown,
 * and English scans and images (MarkItDown's OCR test files) for their expected items and time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { convertWithNotes } from '../../../src/backend/convert/index';
import { DEFAULT_OCR_LANGUAGES } from '../../../src/backend/convert/ocrLanguages';
import { missingItems, type ExpectedSet } from './expected';
import { doclingCases } from './structure';
import { progress } from '../lib/report';
import { ms, ratio } from '../lib/stats';

/** The two ways compared: DocChat's default languages and English only (what OCR read before). */
export const LANGUAGE_SETS = [
  { label: DEFAULT_OCR_LANGUAGES.join(', '), languages: DEFAULT_OCR_LANGUAGES },
  { label: 'eng only', languages: ['eng'] },
] as const;

/**
 * Words of `text` (letters and digits) as compared: Arabic-script letters that text layers and
 * OCR write in either of two forms (Arabic or Persian yeh and kaf, alef with hamza, teh marbuta),
 * vowel marks and tatweel folded, so a Persian word is the same whichever code points spell it.
 */
export function comparableWords(text: string): string[] {
  const folded = text
    .normalize('NFKC')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/[\u064B-\u065F\u0670\u0640\u200E\u200F]/g, '')
    .replace(/[يى]/g, 'ی')
    .replace(/ك/g, 'ک')
    .replace(/[أإآ]/g, 'ا')
    .replace(/ة/g, 'ه')
    .toLowerCase();
  return folded.match(/[\p{L}\p{N}]+/gu) ?? [];
}

export interface WordScore {
  /** Expected words (with repeats). */
  words: number;
  /** Expected words found in the output (each output word counts once). */
  found: number;
  /** Of the found words, how many keep their expected order: the longest common subsequence of the two word sequences. */
  inOrder: number;
}

/** Word recall and order of `actual` against `expected`. */
export function scoreWords(expected: string, actual: string): WordScore {
  const want = comparableWords(expected);
  const got = comparableWords(actual);
  const bag = new Map<string, number>();
  for (const word of got) bag.set(word, (bag.get(word) ?? 0) + 1);
  let found = 0;
  for (const word of want) {
    const left = bag.get(word) ?? 0;
    if (left) {
      found++;
      bag.set(word, left - 1);
    }
  }
  let previous = new Uint32Array(got.length + 1);
  let current = new Uint32Array(got.length + 1);
  for (let i = 1; i <= want.length; i++) {
    for (let j = 1; j <= got.length; j++) {
      current[j] = want[i - 1] === got[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    [previous, current] = [current, previous];
  }
  return { words: want.length, found, inOrder: previous[got.length]! };
}

/** Whether poppler's pdftoppm is here to rasterize the PDFs. */
export function canRasterize(): boolean {
  try {
    execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Each page of `pdf` as a gray PNG at `dpi` (a scan of the printed page). */
export function rasterize(pdf: string, dpi = 300): Buffer[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-scan-'));
  try {
    execFileSync('pdftoppm', ['-r', String(dpi), '-gray', '-png', pdf, path.join(dir, 'page')], { stdio: 'ignore' });
    return readdirSync(dir)
      .sort()
      .map((file) => readFileSync(path.join(dir, file)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface LanguageRun {
  markdown: string;
  ms: number;
  error?: string;
}

/** `file` converted with each language set, in turn, in this process. */
export async function convertEach(file: string, data: Uint8Array): Promise<LanguageRun[]> {
  const runs: LanguageRun[] = [];
  for (const set of LANGUAGE_SETS) {
    const start = performance.now();
    try {
      const { markdown } = await convertWithNotes(file, data, { skipOcr: false, maxBytes: 1 << 30, ocrLanguages: set.languages });
      runs.push({ markdown, ms: performance.now() - start });
    } catch (error) {
      runs.push({ markdown: '', ms: performance.now() - start, error: (error as Error)?.message ?? String(error) });
    }
  }
  return runs;
}

/** OCR's files of MarkItDown (images, scans, documents with pictures), read with each language set side by side. */
export async function englishScansByLanguages(
  files: Map<string, string>,
  set: ExpectedSet,
): Promise<{ caption: string; columns: string[]; rows: (string | number)[][] }> {
  const ocrFiles = [...files].filter(([file]) => /^(?:(?:pdf|docx|pptx|xlsx)_|.*\.(?:jpe?g|png|tiff?|bmp|gif|webp)$)/i.test(file));
  const rows: (string | number)[][] = [];
  const totals = LANGUAGE_SETS.map(() => ({ ms: 0, missing: 0 }));
  let expected = 0;
  for (const [file, full] of ocrFiles.sort(([a], [b]) => a.localeCompare(b))) {
    progress(`OCR languages: ${file}`);
    const expect = set.files[file]?.expect ?? [];
    const runs = await convertEach(file, readFileSync(full));
    expected += expect.length;
    runs.forEach((run, i) => {
      totals[i]!.ms += run.ms;
      totals[i]!.missing += run.error ? expect.length : missingItems(run.markdown, expect).length;
    });
    rows.push([
      file,
      expect.length,
      ...runs.flatMap((run) => [run.error ? `failed: ${run.error.slice(0, 60)}` : missingItems(run.markdown, expect).length, ms(run.ms)]),
      ratio(runs[0]!.ms, runs[1]!.ms),
    ]);
  }
  rows.push(['all', expected, ...totals.flatMap((t) => [t.missing, ms(t.ms)]), ratio(totals[0]!.ms, totals[1]!.ms)]);
  return {
    caption: `English scans and pictures (MarkItDown's OCR files, ${ocrFiles.length}) read with ${LANGUAGE_SETS[0].label} against ${LANGUAGE_SETS[1].label}, side by side in one run`,
    columns: [
      'file',
      'expected items',
      ...LANGUAGE_SETS.flatMap((s) => [`missing (${s.label})`, `ms (${s.label})`]),
      `time ${LANGUAGE_SETS[0].label} ÷ ${LANGUAGE_SETS[1].label}`,
    ],
    rows,
  };
}

/**
 * Docling's right-to-left PDFs (Arabic, Persian) as scans: each page rasterized at 300 dpi and
 * read by OCR with each language set, scored against Docling's expected markdown.
 */
export async function rightToLeftScans(docling: string): Promise<{ caption: string; columns: string[]; rows: (string | number)[][] }> {
  const cases = doclingCases(docling).filter((c) => /right_to_left/i.test(c.file));
  const rows: (string | number)[][] = [];
  for (const c of cases) {
    progress(`right-to-left scans: ${c.file}`);
    const expected = readFileSync(path.join(docling, 'tests/data/pdf/groundtruth', c.file.replace(/\.pdf$/i, '.md')), 'utf8');
    const pages = rasterize(c.path);
    const outputs = LANGUAGE_SETS.map(() => ({ markdown: '', ms: 0, error: '' }));
    for (const [i, page] of pages.entries()) {
      const runs = await convertEach(`${c.file.replace(/\.pdf$/i, '')}-page${i + 1}.png`, page);
      runs.forEach((run, k) => {
        outputs[k]!.markdown += `${run.markdown}\n\n`;
        outputs[k]!.ms += run.ms;
        outputs[k]!.error ||= run.error ?? '';
      });
    }
    const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : '–');
    rows.push([
      c.file,
      pages.length,
      ...outputs.flatMap((out) => {
        const score = scoreWords(expected, out.markdown);
        return [
          out.error ? `failed: ${out.error.slice(0, 60)}` : percent(score.found, score.words),
          percent(score.inOrder, score.found),
          ms(out.ms),
        ];
      }),
    ]);
  }
  return {
    caption: `Right-to-left scans: Docling's Arabic and Persian PDFs rasterized at 300 dpi (${cases.length} files), read by OCR`,
    columns: [
      'file',
      'pages',
      ...LANGUAGE_SETS.flatMap((s) => [`word recall (${s.label})`, `words in reading order (${s.label})`, `ms (${s.label})`]),
    ],
    rows,
  };
}
