import assert from 'node:assert/strict';
import { makeDocx, makePdf, startTestBackend, type TestBackend } from '../helpers';
import * as corpus from './corpus';

describe('backend: conversion of each supported format', () => {
  let t: TestBackend;
  let storeId: string;
  before(async () => {
    t = await startTestBackend({ rateLimits: false });
    storeId = await t.createStore('formats');
  });
  after(async () => t.close());

  async function convert(filename: string, data: string | Uint8Array, attach: Record<string, unknown> = {}) {
    const done = await t.ingest(storeId, filename, data, attach);
    if (done.json.status !== 'completed') {
      return { status: done.json.status as string, error: done.json.last_error as string, markdown: '' };
    }
    const content = await t.docs('GET', `/v1/vector_stores/${storeId}/files/${done.json.id}/content`);
    return { status: 'completed', error: '', markdown: content.json.data[0].text as string };
  }

  it('plain text and markdown stay as they are', async () => {
    const text = await convert('notes.txt', 'line one\r\nline two');
    assert.equal(text.markdown, 'line one\nline two\n');
    const md = await convert('readme.md', '# Title\n\n- item\n');
    assert.equal(md.markdown, '# Title\n\n- item\n');
  });

  it('source code is fenced with its language under a heading of the file name', async () => {
    const ts = await convert('app.ts', 'const a = 1;\n');
    assert.equal(ts.markdown, '# app.ts\n\n```ts\nconst a = 1;\n```\n');
    const py = await convert('tool.py', 'print("hi")\n');
    assert.match(py.markdown, /^```python$/m);
    const docker = await convert('Dockerfile', 'FROM node:20\n');
    assert.match(docker.markdown, /```dockerfile\nFROM node:20\n```/);
  });

  it('code containing a fence gets a longer fence', async () => {
    const md = await convert('gen.js', 'const s = "```";\n');
    assert.match(md.markdown, /^````js$/m);
  });

  it('HTML: headings, fenced code with language, GFM tables, no scripts', async () => {
    const html = `<!doctype html><html><head><title>Guide</title><script>alert(1)</script></head><body>
      <h1>Install</h1><p>Run the <b>installer</b>.</p>
      <pre><code class="language-bash">npm install docchat</code></pre>
      <table><tr><th>Name</th><th>Port</th></tr><tr><td>api</td><td>8080</td></tr></table>
      <img src="data:image/png;base64,AAAA" alt="diagram"></body></html>`;
    const result = await convert('guide.html', html);
    assert.equal(result.status, 'completed');
    assert.match(result.markdown, /^# Install$/m);
    assert.match(result.markdown, /Run the \*\*installer\*\*\./);
    assert.match(result.markdown, /```bash\nnpm install docchat\n```/);
    assert.match(result.markdown, /\| Name \| Port \|\n\| --- \| --- \|\n\| api \| 8080 \|/);
    assert.ok(!result.markdown.includes('alert'));
    assert.ok(!result.markdown.includes('base64'));
    assert.match(result.markdown, /\[image: diagram\]/);
  });

  it('HTML with skip_ocr: tables as plain rows (no advanced table recognition)', async () => {
    const result = await convert('t.html', '<table><tr><td>a</td><td>b</td></tr></table>', { skip_ocr: true });
    assert.equal(result.markdown.trim(), 'a | b');
  });

  it('PDF: text of every page, one section per page', async () => {
    const pdf = makePdf([{ lines: ['Quarterly report', 'Revenue grew by ten percent.'] }, { lines: ['Second page text.'] }]);
    const result = await convert('report.pdf', pdf);
    assert.equal(result.status, 'completed', result.error);
    assert.match(result.markdown, /## Page 1\n\nQuarterly report\nRevenue grew by ten percent\./);
    assert.match(result.markdown, /## Page 2\n\nSecond page text\./);
  });

  it('PDF: an image-only page is named in the notes, with and without skip_ocr', async () => {
    const pdf = makePdf([{ lines: ['Cover text'] }, { image: true }]);
    const skipped = await convert('scan.pdf', pdf, { skip_ocr: true });
    assert.equal(skipped.status, 'completed', skipped.error);
    assert.match(skipped.markdown, /Cover text/);
    assert.match(skipped.markdown, /page 2 has only an image; OCR was skipped \(skip_ocr: true\)/);
    // A 2 × 2 picture holds no text OCR could read.
    const noText = await convert('scan2.pdf', pdf, { skip_ocr: false });
    assert.equal(noText.status, 'completed', noText.error);
    assert.match(noText.markdown, /page 2 has only an image, and OCR found no text in it\./);
    const onlyImages = await convert('scan3.pdf', makePdf([{ image: true }]), { skip_ocr: true });
    assert.equal(onlyImages.status, 'failed');
    assert.match(onlyImages.error, /page 1 of 1 contains only images and OCR was skipped \(skip_ocr: true\)/);
  });

  it('PDF: corrupt and empty documents fail clearly', async () => {
    const corrupt = await convert('corrupt.pdf', '%PDF-1.4\nthis is not really a pdf\n%%EOF');
    assert.equal(corrupt.status, 'failed');
    assert.match(corrupt.error, /corrupt PDF/);
    const blank = await convert('blank.pdf', makePdf([{}]));
    assert.equal(blank.status, 'failed');
    assert.match(blank.error, /contains no text/);
  });

  it('DOCX: headings, paragraphs and tables', async () => {
    const docx = await makeDocx({
      heading: 'Travel policy',
      paragraphs: ['Book trains when the trip is under four hours.'],
      table: [
        ['Class', 'Allowed'],
        ['Economy', 'yes'],
      ],
    });
    const result = await convert('policy.docx', docx);
    assert.equal(result.status, 'completed', result.error);
    assert.match(result.markdown, /^# Travel policy$/m);
    assert.match(result.markdown, /Book trains when the trip is under four hours\./);
    assert.match(result.markdown, /\| Class \| Allowed \|\n\| --- \| --- \|\n\| Economy \| yes \|/);
  });

  it('DOCX: images only fails with the OCR error; a broken package is corrupt', async function () {
    this.timeout(120_000);
    const imageOnly = await convert('scan.docx', await makeDocx({ imageOnly: true }));
    assert.equal(imageOnly.status, 'failed');
    assert.match(imageOnly.error, /scan\.docx contains only images, and OCR found no text in them\./);
    const skipped = await convert('scan-skip.docx', await makeDocx({ imageOnly: true }), { skip_ocr: true });
    assert.match(skipped.error, /the document contains only images and OCR was skipped \(skip_ocr: true\)/);
    const broken = await convert('broken.docx', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 1)]));
    assert.equal(broken.status, 'failed');
    assert.match(broken.error, /corrupt DOCX/);
    const notZip = await convert('fake.docx', 'plain text pretending');
    assert.match(notZip.error, /not a valid DOCX file/);
  });

  it('converted files are searchable', async () => {
    await convert('searchable.pdf', makePdf([{ lines: ['The zeppelin departs at dawn.'] }]));
    const reply = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'zeppelin dawn' });
    assert.match(reply.json.data[0].content, /zeppelin departs at dawn/);
  });

  it('sheet, slide and OCR page passages are found and name their sheet, slide or page', async function () {
    this.timeout(120_000);
    for (const [name, data] of [
      ['budget.xlsx', await corpus.xlsxWorkbook()],
      ['review.pptx', await corpus.pptxDeck(corpus.textImage(['Org chart'], 'png'))],
      ['appendix.pdf', corpus.scannedPdf(['Scanned appendix', 'Serial number 7731'], 24, ['Cover page text'])],
    ] as const) {
      const done = await t.ingest(storeId, name, data, { skip_ocr: false });
      assert.equal(done.json.status, 'completed', done.json.last_error);
    }
    const search = async (query: string) => (await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query })).json.data[0];
    const sheet = await search('Ada Lovelace Analytics');
    assert.equal(sheet.filename, 'budget.xlsx');
    assert.match(sheet.heading, /Sheet: Staff/);
    const slide = await search('hiring freeze');
    assert.match(slide.heading, /Slide 1: Quarterly review/);
    const page = await search('serial number 7731');
    assert.equal(page.filename, 'appendix.pdf');
    assert.match(page.heading, /Page 2/);
    assert.match(page.content, /Serial number 7731/);
  });

  it('a bomb fails with its sentence and the backend goes on converting', async () => {
    const header = Buffer.from('89504e470d0a1a0a0000000d49484452000186a0000186a00806000000', 'hex');
    const bomb = await t.ingest(storeId, 'bomb.png', Buffer.concat([header, Buffer.alloc(16)]));
    assert.equal(bomb.json.status, 'failed');
    assert.match(bomb.json.last_error, /more than the limit of 40 megapixels/);
    const after = await t.ingest(storeId, 'after.csv', 'city,zone\nLisbon,WET\n');
    assert.equal(after.json.status, 'completed', after.json.last_error);
  });
});
