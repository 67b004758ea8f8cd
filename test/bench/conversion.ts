/**
 * Benchmark: local conversion per format (files/s, MB/s), OCR pages per second (images and
 * scanned PDF pages), full conversion against skip_ocr on the same files, how long a small file
 * waits behind a long conversion in the pool, and (with DOCCHAT_MARKITDOWN=<folder>) the files
 * of Microsoft MarkItDown's tests scored against their published expectations. Files come from
 * the test corpus (test/unit/backend/convert/corpus.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConversionError, convertWithNotes } from '../../src/backend/convert/index';
import { ConversionPool } from '../../src/backend/convert/pool';
import { filesUnder, scoreFiles, type ExpectedSet } from './conversion/expected';
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
  } else {
    notes.push(
      "MarkItDown's test files were not scored: set DOCCHAT_MARKITDOWN to the packages/ folder of a MarkItDown checkout (markitdown/tests/test_files and markitdown-ocr/tests/ocr_test_data).",
    );
  }

  return {
    id: 'conversion',
    title: 'Local conversion: formats, OCR, full against skip',
    goal: 'Every attached format converts locally; OCR reads scans and images offline; skip_ocr is measurably faster on the same file.',
    method:
      `Each file converted in this process with convertWithNotes (what a conversion worker runs), median of 5 runs after a warm-up per format, ${RUNS} runs for OCR. ` +
      'A conversion on the serving thread starts and ends its OCR engine per file, so OCR times include the engine start (about 1 s); a conversion worker keeps its engine between files.',
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
