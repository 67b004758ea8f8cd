/**
 * Benchmark: local conversion per format (files/s, MB/s), OCR pages per second (images and
 * scanned PDF pages), full conversion against skip_ocr on the same files, how long a small file
 * waits behind a long conversion in the pool, and (with DOCCHAT_MARKITDOWN=<folder>) the files
 * of Microsoft MarkItDown's tests scored against their published expectations. Files come from
 * the test corpus (test/unit/backend/convert/corpus.ts).
 *
 * Two more sets score structure (text recall, reading order, table cells in their rows,
 * headings) per format against another converter's expected output, from checkouts outside the
 * repository: DOCCHAT_DOCLING=<Docling checkout> (its PDFs in tests/data/pdf/sources with the
 * markdown Docling expects in tests/data/pdf/groundtruth) and DOCCHAT_UNSTRUCTURED=<Unstructured
 * checkout> (example-docs/ with the elements its ingest tests expect in
 * test_unstructured_ingest/expected-structured-output/). Each set is reported in two halves by a
 * fixed hash of the file name (tuning and held out); with DOCCHAT_CONVERT_BASELINE=<another
 * checkout> its converter runs beside this one on every file, before and after side by side.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConversionError, convertWithNotes } from '../../src/backend/convert/index';
import { ConversionPool } from '../../src/backend/convert/pool';
import { filesUnder, scoreFiles, type ExpectedSet } from './conversion/expected';
import { canRasterize, englishScansByLanguages, rightToLeftScans } from './conversion/ocrLanguages';
import {
  byFormat,
  doclingCases,
  halfOf,
  scoreStructure,
  sumScores,
  unstructuredCases,
  type StructureCase,
  type StructureScore,
} from './conversion/structure';
import * as corpus from '../unit/backend/convert/corpus';
import { makePdf } from '../unit/backend/helpers';
import { main, progress, type BenchResult } from './lib/report';
import { kb, ms, nowMs, ratio, summarize } from './lib/stats';

const RUNS = 3;

async function time(filename: string, data: Uint8Array, skipOcr: boolean): Promise<number> {
  const start = nowMs();
  try {
    await convertWithNotes(filename, data, { skipOcr, maxBytes: 1 << 30 });
  } catch (error) {
    // A file of scans only, with skip_ocr: the answer is the sentence naming the skipped pages.
    if (!(skipOcr && error instanceof ConversionError && error.code === 'ocr_skipped')) throw error;
  }
  return nowMs() - start;
}

async function medianMs(filename: string, data: Uint8Array, skipOcr: boolean, runs = RUNS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await time(filename, data, skipOcr));
  return summarize(times).median;
}

const share = (found: number, total: number) =>
  total ? `${found.toLocaleString('en')} of ${total.toLocaleString('en')} (${((100 * found) / total).toFixed(1)} %)` : '–';

/** The columns of a structure score, in a table row. */
const scoreCells = (s: StructureScore) => [
  share(s.words.found, s.words.total),
  share(s.order.inOrder, s.order.pairs),
  share(s.cells.inRow, s.cells.total),
  share(s.headings.found, s.headings.expected),
  share(s.headings.right, s.headings.marked),
];
const SCORE_COLUMNS = [
  'text recall (words)',
  'reading order (consecutive paragraphs in order)',
  'table cells in their rows',
  'expected headings marked',
  'marked headings expected',
];

type Convert = typeof convertWithNotes;

/** Converts one document (bounded like the MarkItDown set): its markdown, how it went, and how long it took. */
async function convertBounded(convert: Convert, c: StructureCase): Promise<{ markdown: string; result: string; ms: number }> {
  let markdown = '';
  let result = 'converted';
  let timer: NodeJS.Timeout | undefined;
  const start = nowMs();
  try {
    markdown = await Promise.race([
      convert(c.file, readFileSync(c.path), { skipOcr: false, maxBytes: 1 << 30 }).then((r) => r.markdown),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no result after 300 s')), 300_000);
      }),
    ]);
  } catch (error) {
    result = `failed: ${(error as Error)?.message ?? error}`.slice(0, 120);
  } finally {
    clearTimeout(timer);
  }
  return { markdown, result, ms: nowMs() - start };
}

/** A document's pages: a PDF's page count, 1 for anything else. */
async function pagesOf(c: StructureCase): Promise<number> {
  if (!c.file.toLowerCase().endsWith('.pdf')) return 1;
  const { getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(readFileSync(c.path)), { verbosity: 0 } as Parameters<typeof getDocumentProxy>[1]);
  const pages = pdf.numPages;
  await pdf.destroy();
  return pages;
}

/**
 * Converts each document of a set and scores its structure; a failed file scores nothing found.
 * With a baseline (the converter of another checkout, DOCCHAT_CONVERT_BASELINE), each document is
 * converted by both, one right after the other, and the tables set them side by side: per half of
 * the set (tuning and held out, by a fixed hash of the file name) and per file.
 */
async function scoreStructureSet(
  name: string,
  cases: StructureCase[],
  baseline?: Convert,
): Promise<{ caption: string; columns: string[]; rows: (string | number)[][] }[]> {
  const versions: [string, Convert][] = baseline
    ? [
        ['before', baseline],
        ['after', convertWithNotes],
      ]
    : [['this build', convertWithNotes]];
  const scores: { file: string; version: string; score: StructureScore; result: string; ms: number; pages: number }[] = [];
  // A warm-up per converter (its modules and OCR engine loaded), then the two in turn, the first of each file alternating.
  if (cases[0]) for (const [, convert] of versions) await convertBounded(convert, cases[0]);
  for (const [k, c] of cases.entries()) {
    progress(`${name}: ${c.file}`);
    const pages = await pagesOf(c).catch(() => 1);
    for (const [version, convert] of k % 2 ? [...versions].reverse() : versions) {
      const { markdown, result, ms } = await convertBounded(convert, c);
      scores.push({ file: c.file, version, score: scoreStructure(markdown, c.expected), result, ms, pages });
    }
  }
  const halves = (['tuning', 'held-out'] as const).flatMap((half) =>
    versions.map(([version]) => {
      const of = scores.filter((s) => s.version === version && halfOf(s.file) === half);
      const pages = of.reduce((n, s) => n + s.pages, 0);
      const score = sumScores(of.map((s) => s.score));
      return [
        half,
        version,
        of.length,
        pages,
        ...scoreCells(score),
        score.headings.marked - score.headings.right,
        pages ? (of.reduce((n, s) => n + s.ms, 0) / pages).toFixed(0) : '–',
      ];
    }),
  );
  const current = scores.filter((s) => s.version === versions[versions.length - 1]![0]);
  return [
    {
      caption: `${name}: structure per half (${cases.length} files; the half by a fixed hash of the file name)`,
      columns: ['half', 'converter', 'files', 'pages', ...SCORE_COLUMNS, 'marked lines not expected headings', 'ms per page'],
      rows: halves,
    },
    {
      caption: `${name}: structure per format (${versions[versions.length - 1]![0]})`,
      columns: ['format', 'files', ...SCORE_COLUMNS],
      rows: [...byFormat(current)].map(([format, { files, score }]) => [format, files, ...scoreCells(score)]),
    },
    {
      caption: `${name}: structure per file`,
      columns: ['file', 'half', 'converter', 'result', ...SCORE_COLUMNS, 'ms per page'],
      rows: scores.map((s) => [s.file, halfOf(s.file), s.version, s.result, ...scoreCells(s.score), (s.ms / s.pages).toFixed(0)]),
    },
  ];
}

/** The converter of another checkout (DOCCHAT_CONVERT_BASELINE=<its root>), run from its sources, to compare against. */
async function baselineConverter(): Promise<Convert | undefined> {
  const root = process.env.DOCCHAT_CONVERT_BASELINE;
  if (!root) return undefined;
  const module = (await import(pathToFileURL(path.resolve(root, 'src/backend/convert/index.ts')).href)) as { convertWithNotes: Convert };
  return module.convertWithNotes;
}

main(async (): Promise<BenchResult> => {
  const picture = corpus.textImage(['Invoice 2041', 'Total due 950 EUR'], 'png');
  const bigCsv = `id,name,amount\n${Array.from({ length: 20_000 }, (_, i) => `${i},customer ${i},${(i * 3.7).toFixed(2)}`).join('\n')}\n`;
  const textPdf = makePdf(
    Array.from({ length: 20 }, (_, p) => ({
      lines: Array.from({ length: 40 }, (_, l) => `Page ${p} line ${l} about turbines and gearboxes`),
    })),
  );
  const files: [string, Uint8Array][] = [
    ['sales.xlsx', await corpus.xlsxWorkbook()],
    ['sales.xls', await corpus.sheetJsWorkbook('biff8')],
    ['sales.ods', await corpus.sheetJsWorkbook('ods')],
    ['customers.csv (20,000 rows)', Buffer.from(bigCsv)],
    ['prices.csv (Shift-JIS)', corpus.shiftJisCsv()],
    ['review.pptx', await corpus.pptxDeck(picture)],
    ['roadmap.odp', await corpus.odpPresentation()],
    ['guide.odt', await corpus.odtDocument()],
    ['cafe.rtf', Buffer.from(corpus.RTF)],
    ['book.epub', await corpus.epubBook()],
    ['approval.msg', await corpus.outlookMsg()],
    ['numbers.eml', Buffer.from(corpus.EML)],
    ['churn.ipynb', Buffer.from(corpus.NOTEBOOK)],
    ['news.rss', Buffer.from(corpus.RSS)],
    ['release.html', Buffer.from(corpus.WEB_PAGE)],
    ['geometry.docx', await corpus.richDocx()],
    // A Word 97–2003 paragraph and table (word-extractor's public test file, test/fixtures/word-extractor).
    ['licences.doc', readFileSync(path.resolve('test/fixtures/word-extractor/test03.doc'))],
    ['bundle.zip', await corpus.zipOf({ 'a.txt': 'member text', 'b.csv': bigCsv.slice(0, 20_000), 'c.docx': await corpus.richDocx() })],
    ['report.pdf (20 pages)', textPdf],
  ];
  const formatRows: (string | number)[][] = [];
  for (const [label, data] of files) {
    progress(`format ${label}`);
    const name = label.replace(/ \(.*\)$/, '');
    await time(name, data, true); // warm-up: loads the converter's modules
    const median = await medianMs(name, data, true, 5);
    formatRows.push([
      label,
      kb(data.length),
      ms(median),
      (1000 / median).toFixed(1),
      ((data.length / 1024 / 1024) * (1000 / median)).toFixed(2),
    ]);
  }

  progress('OCR');
  const scanPages = 4;
  const scanned = makePdf(
    Array.from({ length: scanPages }, (_, i) => {
      const { width, height, rgba } = corpus.renderText(
        [`Scanned page ${i + 1}`, 'Serial number 7731', 'Inspection passed on 12 March'],
        24,
      );
      const gray = Buffer.alloc(width * height);
      for (let p = 0; p < gray.length; p++) gray[p] = Math.round((rgba[p * 4]! + rgba[p * 4 + 1]! + rgba[p * 4 + 2]!) / 3);
      return { scan: { width, height, gray } };
    }),
  );
  const ocrRows: (string | number)[][] = [];
  const image = corpus.textImage(['Invoice 2041', 'Total due 950 EUR'], 'png');
  const imageMs = await medianMs('scan.png', image, false);
  ocrRows.push(['one PNG image (32 px text), engine start included', 1, ms(imageMs), (1000 / imageMs).toFixed(2)]);
  const pdfMs = await medianMs('scanned.pdf', scanned, false);
  ocrRows.push([
    `scanned PDF, ${scanPages} pages (24 px text), one engine start`,
    scanPages,
    ms(pdfMs),
    ((scanPages * 1000) / pdfMs).toFixed(2),
  ]);

  progress('full against skip');
  const pairs: [string, Uint8Array][] = [
    [`scanned.pdf (${scanPages} scanned pages; skip_ocr answers with the sentence naming them)`, scanned],
    ['appendix.pdf (1 text page + 1 scanned page)', corpus.scannedPdf(['Scanned appendix', 'Serial number 7731'], 24, ['Cover page text'])],
    ['signed.docx (text + 1 picture)', await corpus.richDocx(picture)],
    ['review.pptx (2 slides, 1 picture)', await corpus.pptxDeck(picture)],
  ];
  const skipRows: (string | number)[][] = [];
  for (const [label, data] of pairs) {
    const name = label.replace(/ \(.*\)$/, '');
    const full = await medianMs(name, data, false);
    const skip = await medianMs(name, data, true);
    skipRows.push([label, ms(full), ms(skip), ratio(full, skip)]);
  }

  progress('a small file behind a long conversion');
  const queueRows: (string | number)[][] = [];
  const longPages = 40;
  const longScan = makePdf(
    Array.from({ length: longPages }, (_, i) => {
      const { width, height, rgba } = corpus.renderText([`Scanned page ${i + 1}`, 'Serial number 7731'], 24);
      const gray = Buffer.alloc(width * height);
      for (let p = 0; p < gray.length; p++) gray[p] = Math.round((rgba[p * 4]! + rgba[p * 4 + 1]! + rgba[p * 4 + 2]!) / 3);
      return { scan: { width, height, gray } };
    }),
  );
  const workerScript = path.resolve('dist/convert-worker.js');
  for (const [label, extraWorkers] of [
    ['one worker, first come first served (before)', 0],
    ['one worker, and a second beside a conversion running > 2 s', 1],
  ] as const) {
    const times: { small: number; long: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const pool = new ConversionPool({ workers: 1, extraWorkers, longMs: 2_000 }, undefined, { workerScript });
      // Workers started and warm: only the waiting is measured.
      await pool.convert({ filename: 'warm.txt', data: Buffer.from('warm'), options: { skipOcr: true, maxBytes: 1 << 30 } });
      const start = nowMs();
      const long = pool.convert({ filename: 'scanned.pdf', data: longScan, options: { skipOcr: false, maxBytes: 1 << 30 } });
      const small = pool.convert({
        filename: 'notes.txt',
        data: Buffer.from('gearbox oil every 500 hours'),
        options: { skipOcr: false, maxBytes: 1 << 30 },
      });
      const smallMs = await small.then(() => nowMs() - start);
      const longMs = await long.then(() => nowMs() - start);
      times.push({ small: smallMs, long: longMs });
      await pool.close();
    }
    queueRows.push([label, ms(summarize(times.map((t) => t.small)).median), ms(summarize(times.map((t) => t.long)).median)]);
  }

  const tables = [];
  const notes: string[] = [];
  const markitdown = process.env.DOCCHAT_MARKITDOWN;
  if (markitdown) {
    progress('MarkItDown test files');
    const set = JSON.parse(readFileSync(path.resolve('test/bench/conversion/markitdown-expected.json'), 'utf8')) as ExpectedSet;
    const files = new Map([
      ...filesUnder(path.join(markitdown, 'markitdown/tests/test_files')),
      ...filesUnder(path.join(markitdown, 'markitdown-ocr/tests/ocr_test_data')),
    ]);
    const scores = await scoreFiles(
      files,
      set,
      async (file, data) => (await convertWithNotes(file, data, { skipOcr: false, maxBytes: 1 << 30 })).markdown,
      300_000,
      (file) => progress(file),
    );
    const withExpected = scores.filter((s) => s.expected);
    const missing = withExpected.filter((s) => s.missing.length);
    tables.push({
      caption: `MarkItDown's test files (${scores.length} files, ${withExpected.length} with published expectations; ${missing.length} miss expected content)`,
      columns: ['file', 'KB', 'result', 'expected items missing', 'first missing', 'ms'],
      rows: scores.map((s) => [
        s.file,
        kb(s.bytes),
        s.status === 'converted' ? 'converted' : `${s.status}: ${s.error ?? ''}`.slice(0, 160),
        s.expected ? `${s.missing.length} of ${s.expected}` : 'no expectation',
        s.missing[0]?.slice(0, 80) ?? '',
        ms(s.ms),
      ]),
    });
    tables.push(await englishScansByLanguages(files, set));
  } else {
    notes.push(
      "MarkItDown's test files were not scored: set DOCCHAT_MARKITDOWN to the packages/ folder of a MarkItDown checkout (markitdown/tests/test_files and markitdown-ocr/tests/ocr_test_data).",
    );
  }

  const baseline = await baselineConverter();
  const docling = process.env.DOCCHAT_DOCLING;
  const doclingSet = docling ? doclingCases(docling) : [];
  if (doclingSet.length) {
    tables.push(...(await scoreStructureSet("Docling's PDFs against Docling's expected markdown", doclingSet, baseline)));
  } else {
    notes.push(
      "Docling's PDFs were not scored: set DOCCHAT_DOCLING to a checkout of github.com/docling-project/docling (tests/data/pdf/sources with the expected markdown in tests/data/pdf/groundtruth; MIT licence).",
    );
  }
  if (docling && canRasterize()) tables.push(await rightToLeftScans(docling));
  else if (docling) {
    notes.push("Docling's right-to-left PDFs were not scanned: poppler's pdftoppm is not installed (Debian: poppler-utils).");
  }
  const unstructured = process.env.DOCCHAT_UNSTRUCTURED;
  const unstructuredSet = unstructured ? unstructuredCases(unstructured) : [];
  if (unstructuredSet.length) {
    tables.push(
      ...(await scoreStructureSet(
        "Unstructured's example documents against the elements its ingest tests expect",
        unstructuredSet,
        baseline,
      )),
    );
  } else {
    notes.push(
      "Unstructured's example documents were not scored: set DOCCHAT_UNSTRUCTURED to a checkout of github.com/Unstructured-IO/unstructured (example-docs/ with the expected elements in test_unstructured_ingest/expected-structured-output/; Apache-2.0 licence).",
    );
  }

  return {
    id: 'conversion',
    title: 'Local conversion: formats, OCR, full against skip',
    goal: 'Every attached format converts locally; OCR reads scans and images offline; skip_ocr is measurably faster on the same file.',
    method:
      `Each file converted in this process with convertWithNotes (what a conversion worker runs), median of 5 runs after a warm-up per format, ${RUNS} runs for OCR. ` +
      'A conversion on the serving thread starts and ends its OCR engine per file, so OCR times include the engine start (about 1 s); a conversion worker keeps its engine between files. ' +
      "Structure against another converter's expected output: text recall counts the expected words (letters and digits, with repeats) found in DocChat's markdown; " +
      'reading order takes each pair of consecutive expected paragraphs both found (by their first 40 characters, compared without markup, case or spaces) and counts the pairs found in the same order; ' +
      "a table cell is in its row when one markdown table row holds it with the most of its expected row's cells; " +
      "headings: the expected headings (Docling's markdown headings, Unstructured's Title elements) marked as markdown headings, and of the lines DocChat marks as headings (not its own `## Page N`) the share that are expected. " +
      'Each set is split in two halves by a fixed hash of the file name (FNV-1a, even: tuning, odd: held out); with DOCCHAT_CONVERT_BASELINE the converter of that checkout converts each file right before this one, and ms per page is the conversion time (OCR of pictures included) over the PDF pages. ' +
      'Right-to-left scans: word recall counts the expected words (letters and digits, with repeats; Arabic and Persian forms of yeh, kaf, alef and teh marbuta and vowel marks folded) found in the OCR text; ' +
      'words in reading order is the longest common subsequence of the expected and the read words over the words found.',
    tables: [
      {
        caption: 'Throughput per format (skip_ocr: true, so no OCR)',
        columns: ['file', 'KB', 'median ms', 'files/s', 'MB/s'],
        rows: formatRows,
      },
      { caption: 'OCR pages per second', columns: ['input', 'pages', 'median ms', 'pages/s'], rows: ocrRows },
      {
        caption: 'Full conversion against skip_ocr on the same file',
        columns: ['file', 'full ms', 'skip_ocr ms', 'full ÷ skip'],
        rows: skipRows,
      },
      {
        caption: `A small text file attached right after a ${longPages}-page scanned PDF (pool of one worker, as on a 2-core machine; median of ${RUNS})`,
        columns: ['pool', 'small file done after', 'scanned PDF done after'],
        rows: queueRows,
      },
      ...tables,
    ],
    notes,
  };
});
