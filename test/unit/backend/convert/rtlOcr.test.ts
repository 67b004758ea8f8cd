import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConversionError, convertWithNotes } from '../../../../src/backend/convert/index';
import { tidyOcrText } from '../../../../src/backend/convert/ocr';
import { ocrLanguagesError, ocrPasses } from '../../../../src/backend/convert/ocrLanguages';
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

  it('direction marks around Latin runs are dropped, the words kept in their order', () => {
    assert.equal(tidyOcrText('تعتبر البرمجة \u200ER\u200F و \u200EPython\u200F من'), 'تعتبر البرمجة R و Python من');
  });
});
