import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConversionError, convertWithNotes } from '../../../../src/backend/convert/index';
import { readingCounts, tidyOcrText } from '../../../../src/backend/convert/ocr';
import { ocrLanguagesError, ocrPasses } from '../../../../src/backend/convert/ocrLanguages';
import { columnsInReadingOrder, type OcrLineBox } from '../../../../src/backend/convert/ocrLayout';
import { ConversionPool } from '../../../../src/backend/convert/pool';

const fixture = (name: string) => readFileSync(path.resolve('test/fixtures/docling', name));

/** Index of each word in `text`, searched after the previous one; -1 for a word not found in order. */
function positionsInOrder(text: string, words: readonly string[]): number[] {
  let from = 0;
  return words.map((word) => {
    const at = text.indexOf(word, from);
    if (at >= 0) from = at + word.length;
    return at;
  });
}

// The heading and the first sentences of Docling's right_to_left_01.pdf, in reading order.
const ARABIC_IN_ORDER = [
  'تحسين',
  'الإنتاجية',
  'المشكلات',
  'البرمجة',
  'تعتبر',
  'الأدوات',
  'القوية',
  'للمشكلات',
  'تحليلات',
  'معقدة',
  'العمل',
];

describe('backend: OCR of right-to-left scans', function () {
  this.timeout(240_000);

  it('an Arabic scan comes out as Arabic text, its words in reading order, its Latin words in place', async () => {
    const { markdown } = await convertWithNotes('arabic-scan.png', fixture('right_to_left_01_top.png'), {
      skipOcr: false,
      maxBytes: 1 << 24,
    });
    const positions = positionsInOrder(markdown, ARABIC_IN_ORDER);
    assert.deepEqual(
      ARABIC_IN_ORDER.filter((_, i) => positions[i]! < 0),
      [],
      `Arabic words missing or out of reading order in:\n${markdown}`,
    );
    // "… البرمجة بلغة R و Python": the Latin words stay inside the Arabic line, after the words before them.
    assert.match(markdown, /البرمجة بلغة R و/u);
    // No direction marks are left inside the text (they would keep words from matching a search).
    assert.doesNotMatch(markdown, /[\u200E\u200F]/u);
  });

  it('a two-column Arabic scan is read column by column, the right one first', async () => {
    const { markdown } = await convertWithNotes('two-columns.png', fixture('right_to_left_01_two_columns.png'), {
      skipOcr: false,
      maxBytes: 1 << 24,
    });
    // The last words of the right column, then the first and last words of the left one.
    const inOrder = ['تعتبر', 'البرمجة', 'المحللين', 'تحليلات', 'معقدة', 'بطريقة', 'سريعة', 'وفعالة', 'التحليلي', 'واستخراج', 'الأنماط'];
    const positions = positionsInOrder(markdown, inOrder);
    assert.deepEqual(
      inOrder.filter((_, i) => positions[i]! < 0),
      [],
      `words missing or out of reading order in:\n${markdown}`,
    );
  });

  it('a conversion worker reads the Arabic scan with the languages the backend was given', async () => {
    const pool = new ConversionPool({ workers: 1, extraWorkers: 0, ocrLanguages: ['eng', 'ara'] });
    try {
      const result = await pool.convert({
        filename: 'arabic-scan.png',
        data: fixture('right_to_left_01_top.png'),
        options: { skipOcr: false, maxBytes: 1 << 24 },
      });
      assert.ok(
        positionsInOrder(result.markdown, ARABIC_IN_ORDER).every((at) => at >= 0),
        result.markdown,
      );
      // English only, as the backend may be told: the Arabic page is not read as Arabic.
      const english = await pool.convert({
        filename: 'arabic-scan.png',
        data: fixture('right_to_left_01_top.png'),
        options: { skipOcr: false, maxBytes: 1 << 24, ocrLanguages: ['eng'] },
      });
      assert.doesNotMatch(english.markdown, /الإنتاجية/u);
    } finally {
      await pool.close();
    }
  });

  it('past the OCR memory cap with a second script loaded, the English reading is kept and the limit named', async () => {
    // This scan needs about 24 MiB of OCR memory read in English, about 42 MiB with Arabic and Persian loaded too.
    const { markdown, notes } = await convertWithNotes('arabic-scan.png', fixture('right_to_left_01_top.png'), {
      skipOcr: false,
      maxBytes: 1 << 24,
      maxOcrMemoryMb: 32,
    });
    assert.match(markdown, /Python/, 'the English reading is kept');
    assert.deepEqual(notes, [
      'reading arabic-scan.png in Arabic and Persian needed more than the limit of 32 MiB of OCR memory, so it and the later pictures of arabic-scan.png were read in English only.',
    ]);
    // The next file starts a new engine within the cap.
    const next = await convertWithNotes('again.png', fixture('right_to_left_01_top.png'), {
      skipOcr: false,
      maxBytes: 1 << 24,
      maxOcrMemoryMb: 64,
    });
    assert.match(next.markdown, /الإنتاجية/u);
  });

  it('a language that is not shipped fails the conversion with a sentence naming the shipped ones', async () => {
    await assert.rejects(
      convertWithNotes('scan.png', fixture('right_to_left_01_top.png'), {
        skipOcr: false,
        maxBytes: 1 << 24,
        ocrLanguages: ['eng', 'urd'],
      }),
      (error: unknown) =>
        error instanceof ConversionError &&
        error.code === 'ocr_unavailable' &&
        error.message ===
          'OCR has no language "urd": the OCR languages DocChat ships are eng (English), ara (Arabic), fas (Persian), heb (Hebrew).',
    );
    assert.match(ocrLanguagesError([]) ?? '', /^no OCR language was given: the OCR languages DocChat ships are eng \(English\)/);
    assert.equal(ocrLanguagesError(['heb', 'eng']), undefined);
  });

  it('Latin-script languages are read first, then each right-to-left script with them', () => {
    assert.deepEqual(ocrPasses(['eng', 'ara', 'fas', 'heb']), ['eng', 'ara+fas+eng', 'heb+eng']);
    assert.deepEqual(ocrPasses(['heb', 'eng']), ['eng', 'heb+eng']);
    assert.deepEqual(ocrPasses(['fas']), ['fas']);
    assert.deepEqual(ocrPasses(['eng']), ['eng']);
  });

  it('lines joined across a gutter are cut there, a heading over both columns kept whole, forms and left-to-right pages left as read', () => {
    const word = (text: string, x0: number, x1: number, y: number) => ({ text, bbox: { x0, x1, y0: y, y1: y + 40 } });
    const line = (...words: ReturnType<typeof word>[]): OcrLineBox => ({
      words,
      bbox: {
        x0: Math.min(...words.map((w) => w.bbox.x0)),
        x1: Math.max(...words.map((w) => w.bbox.x1)),
        y0: words[0]!.bbox.y0,
        y1: words[0]!.bbox.y1 + 0,
      },
    });
    // Words 180 wide, 20 apart: the right column at x 1120 to 1900, the left at 120 to 900; logical order right to left.
    const joined = (y: number, right: string[], left: string[]) =>
      line(
        ...right.map((t, i) => word(t, 1720 - i * 200, 1900 - i * 200, y)),
        ...left.map((t, i) => word(t, 720 - i * 200, 900 - i * 200, y)),
      );
    const page = [
      line(word('عنوان', 1200, 1500, 0), word('الصفحة', 800, 1150, 0)),
      joined(100, ['ر١', 'ر٢', 'ر٣', 'ر٤'], ['ي١', 'ي٢', 'ي٣', 'ي٤']),
      joined(150, ['ر٥', 'ر٦', 'ر٧', 'ر٨'], ['ي٥', 'ي٦', 'ي٧', 'ي٨']),
      joined(200, ['ر٩', 'ر١٠', 'ر١١', 'ر١٢'], ['ي٩', 'ي١٠', 'ي١١', 'ي١٢']),
    ];
    assert.equal(
      columnsInReadingOrder(page),
      'عنوان الصفحة\n\nر١ ر٢ ر٣ ر٤\nر٥ ر٦ ر٧ ر٨\nر٩ ر١٠ ر١١ ر١٢\n\nي١ ي٢ ي٣ ي٤\nي٥ ي٦ ي٧ ي٨\nي٩ ي١٠ ي١١ ي١٢',
    );
    // A form: a label and its value far apart on each line stay one line.
    const form = [100, 150, 200, 250].map((y) => line(word('الاسم:', 1700, 1900, y), word('قيمة', 200, 400, y)));
    assert.equal(columnsInReadingOrder(form), undefined);
    // A left-to-right page is Tesseract's own.
    const latin = [100, 150, 200].map((y) =>
      line(
        ...['one', 'two', 'three', 'four'].map((t, i) => word(t, 100 + i * 200, 280 + i * 200, y)),
        ...['five', 'six', 'seven', 'eight'].map((t, i) => word(t, 1100 + i * 200, 1280 + i * 200, y)),
      ),
    );
    assert.equal(columnsInReadingOrder(latin), undefined);
  });

  it('a reading tried again in a right-to-left script is kept only when it is text of that script', () => {
    assert.equal(readingCounts(0, 'eng', 'Sip'), true);
    // A logo's marks read as Persian digits are no Persian text (seen on a scanned English invoice).
    assert.equal(readingCounts(1, 'ara+fas+eng', '۳۳'), false);
    assert.equal(readingCounts(1, 'ara+fas+eng', 'Invoice total 120'), false);
    assert.equal(readingCounts(1, 'ara+fas+eng', 'تحسين الإنتاجية وحل المشكلات'), true);
    assert.equal(readingCounts(2, 'heb+eng', 'כל בני האדם נולדו'), true);
  });

  it('direction marks around Latin runs are dropped, the words kept in their order', () => {
    assert.equal(tidyOcrText('تعتبر البرمجة \u200ER\u200F و \u200EPython\u200F من'), 'تعتبر البرمجة R و Python من');
  });
});
