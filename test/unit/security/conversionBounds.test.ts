import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConversionTimer } from '../../../src/backend/convert/pool';
import { textImage } from '../backend/convert/corpus';
import { makeDocx, makePdf, startTestBackend, type Reply, type TestBackend } from '../backend/helpers';

/**
 * A time bound that has run out by the time the worker could answer: it expires right after the
 * job is posted (a microtask, before any message from the worker can be handled).
 */
const expiredAtOnce: ConversionTimer = (expire) => {
  queueMicrotask(expire);
  return () => undefined;
};

function nestedHtml(depth: number): string {
  return `<html><body>${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}</body></html>`;
}

function bigPdf(pages: number): Buffer {
  return makePdf(
    Array.from({ length: pages }, (_, p) => ({
      lines: Array.from({ length: 40 }, (_, l) => `Page ${p} line ${l} of the long report about turbines and gearboxes`),
    })),
  );
}

describe('security: every conversion is bounded and the server keeps answering', function () {
  this.timeout(120_000);
  let t: TestBackend;
  let storeId: string;
  afterEach(async () => t?.close());

  async function start(conversion: Record<string, number> = {}) {
    t = await startTestBackend({ rateLimits: false, conversion });
    storeId = await t.createStore('bounds');
    // A searchable file, so searches during a conversion have something to answer with.
    const ready = await t.ingest(storeId, 'known.md', '# Known\n\nThe gearbox manual says oil every month.\n');
    assert.equal(ready.json.status, 'completed');
  }

  /** Attaches a file and searches the store until the file leaves in_progress; every search must answer. */
  async function attachWhileSearching(filename: string, data: string | Uint8Array): Promise<{ record: Reply; searches: Reply[] }> {
    const uploaded = await t.upload(filename, data);
    assert.equal(uploaded.status, 200, uploaded.text);
    const attached = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: uploaded.json.id });
    assert.equal(attached.status, 200, attached.text);
    const searches: Reply[] = [];
    for (;;) {
      const record = await t.docs('GET', `/v1/vector_stores/${storeId}/files/${uploaded.json.id}`);
      if (record.json.status !== 'in_progress') return { record, searches };
      searches.push(await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'gearbox oil' }));
    }
  }

  function assertSearchesAnswered(searches: Reply[]) {
    for (const reply of searches) {
      assert.equal(reply.status, 200, reply.text);
      assert.match(JSON.stringify(reply.json.data), /gearbox manual/);
    }
  }

  it('HTML nested a few thousand deep fails naming the depth bound while searches answer', async () => {
    await start();
    const { record, searches } = await attachWhileSearching('deep.html', nestedHtml(5000));
    assert.equal(record.json.status, 'failed');
    assert.equal(
      record.json.last_error,
      'conversion stopped: the HTML is nested deeper than 512 elements. Save it as plain text (or with fewer nested levels) and attach it again.',
    );
    assertSearchesAnswered(searches);
  });

  it('HTML nested 100,000 deep fails fast naming the depth bound, and the next file converts', async () => {
    await start();
    const { record, searches } = await attachWhileSearching('deeper.html', nestedHtml(100_000));
    assert.equal(record.json.status, 'failed');
    assert.match(record.json.last_error, /nested deeper than 512 elements/);
    assertSearchesAnswered(searches);
    const next = await t.ingest(storeId, 'fine.html', '<h1>Fine</h1><p>ordinary page</p>');
    assert.equal(next.json.status, 'completed');
  });

  it('the depth bound is configurable', async () => {
    await start({ maxHtmlDepth: 8 });
    const deep = await t.ingest(storeId, 'nine.html', nestedHtml(9));
    assert.equal(
      deep.json.last_error,
      'conversion stopped: the HTML is nested deeper than 8 elements. Save it as plain text (or with fewer nested levels) and attach it again.',
    );
    const shallow = await t.ingest(storeId, 'three.html', nestedHtml(3));
    assert.equal(shallow.json.status, 'completed');
  });

  it('a conversion past the time bound is stopped, names the bound, and the store goes on converting', async () => {
    // The bound's timer runs out as soon as the conversion is handed to its worker, so the worker is
    // stopped mid-conversion however fast the machine is. The searchable file converts first, under
    // the wall clock.
    await start();
    await t.restart({ conversion: { timeoutMs: 50 }, conversionTimer: expiredAtOnce });
    const { record, searches } = await attachWhileSearching('long.pdf', bigPdf(600));
    assert.equal(record.json.status, 'failed');
    assert.match(record.json.last_error, /^conversion stopped: long\.pdf took longer than the limit of 0\.05 s\.$/);
    assertSearchesAnswered(searches);
    await t.restart({ conversion: { timeoutMs: 60_000 }, conversionTimer: undefined });
    const next = await t.ingest(storeId, 'after.txt', 'converted after the stop');
    assert.equal(next.json.status, 'completed');
  });

  it('a conversion past the memory bound fails naming it, and the next file converts', async () => {
    await start({ maxMemoryMb: 16 });
    const { record, searches } = await attachWhileSearching('heavy.pdf', bigPdf(600));
    assert.equal(record.json.status, 'failed');
    assert.match(record.json.last_error, /^conversion stopped: heavy\.pdf needed more memory than the limit of 16(\.0)? MiB\.$/);
    assertSearchesAnswered(searches);
    const next = await t.ingest(storeId, 'small.txt', 'a small file after the big one');
    assert.equal(next.json.status, 'completed');
  });

  it('OCR past its memory bound (outside the worker heap) fails naming it, and the next image is read', async () => {
    // About 50 MiB of Tesseract's WebAssembly memory for this 2,600 × 4,360 scan, past a 32 MiB bound;
    // the small image needs about 20 MiB.
    await start({ maxOcrMemoryMb: 32 });
    const lines = Array.from({ length: 45 }, (_, i) =>
      i < 3 ? `Large scan line ${i} of the audit of the northern warehouse in 2025` : ' ',
    );
    const { record, searches } = await attachWhileSearching('large-scan.png', textImage(lines, 'png', 64));
    assert.equal(record.json.status, 'failed');
    assert.match(
      record.json.last_error,
      /^OCR stopped: reading large-scan\.png needed more than the limit of 32(\.0)? MiB of OCR memory, .* Scale the images down \(or split the file\) and attach it again\.$/,
    );
    assertSearchesAnswered(searches);
    const next = await t.ingest(storeId, 'receipt.png', textImage(['Invoice 2041', 'Total due 950 EUR'], 'png'));
    assert.equal(next.json.status, 'completed', next.text);
    const found = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'Invoice 2041' });
    assert.match(JSON.stringify(found.json.data), /Total due 950 EUR/);
  });

  it('DOCX, PDF and text past the output bound fail naming it', async () => {
    await start({ maxOutputBytes: 2000 });
    const paragraphs = Array.from({ length: 200 }, (_, i) => `Paragraph ${i} about the maintenance of gearboxes.`);
    const docx = await t.ingest(storeId, 'long.docx', await makeDocx({ paragraphs }));
    assert.equal(docx.json.status, 'failed');
    assert.match(docx.json.last_error, /^conversion stopped: long\.docx turns into more than 2(\.0)? KiB of text\.$/);
    const pdf = await t.ingest(storeId, 'long.pdf', bigPdf(5));
    assert.equal(pdf.json.status, 'failed');
    assert.match(pdf.json.last_error, /^conversion stopped: long\.pdf turns into more than 2(\.0)? KiB of text\.$/);
    const text = await t.ingest(storeId, 'long.txt', 'x'.repeat(3000));
    assert.match(text.json.last_error, /turns into more than 2(\.0)? KiB of text/);
    const short = await t.ingest(storeId, 'short.txt', 'short enough');
    assert.equal(short.json.status, 'completed');
  });

  it('DOCX nested a few thousand deep fails naming the depth bound instead of exhausting the stack', async () => {
    await start();
    const JSZip = (await import('jszip')).default;
    const zip = await JSZip.loadAsync(await makeDocx({ paragraphs: ['x'] }));
    const xml = await zip.file('word/document.xml')!.async('string');
    const nest = (depth: number) =>
      `<w:body>${'<w:sdt><w:sdtContent>'.repeat(depth)}<w:p><w:r><w:t>deep text</w:t></w:r></w:p>${'</w:sdtContent></w:sdt>'.repeat(depth)}`;
    zip.file('word/document.xml', xml.replace('<w:body>', nest(2000)));
    const deep = await t.ingest(storeId, 'deep.docx', await zip.generateAsync({ type: 'nodebuffer' }));
    assert.equal(deep.json.status, 'failed');
    assert.equal(
      deep.json.last_error,
      'conversion stopped: deep.docx is nested deeper than 512 elements (in word/document.xml). Save it as plain text (or with fewer nested levels) and attach it again.',
    );
    zip.file('word/document.xml', xml.replace('<w:body>', nest(20)));
    const shallow = await t.ingest(storeId, 'shallow.docx', await zip.generateAsync({ type: 'nodebuffer' }));
    assert.equal(shallow.json.status, 'completed', shallow.text);
  });

  describe('web crawl', () => {
    let site: Server;
    let siteUrl: string;
    before(async () => {
      const pages: Record<string, string | Buffer> = {
        '/deep': nestedHtml(100_000),
        '/long': `<html><body>${'<p>A paragraph about gearbox maintenance and oil.</p>'.repeat(60_000)}</body></html>`,
        '/report.pdf': bigPdf(5),
      };
      site = createServer((req, res) => {
        const page = pages[req.url ?? ''];
        res.writeHead(200, { 'content-type': req.url?.endsWith('.pdf') ? 'application/pdf' : 'text/html; charset=utf-8' });
        res.end(page ?? '<html><head><title>Ok</title></head><body><p>fine page</p></body></html>');
      });
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => site.close(() => resolve())));

    it('a hostile page fails with the depth bound while the other pages convert', async () => {
      await start();
      const reply = await t.gw('POST', '/v1/tools/web/crawl', { urls: [`${siteUrl}/deep`, `${siteUrl}/ok`] });
      assert.equal(reply.status, 200, reply.text);
      const text = JSON.stringify(reply.json);
      assert.match(text, /conversion stopped: the HTML is nested deeper than 512 elements/);
      assert.match(text, /fine page/);
      const search = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'gearbox oil' });
      assert.equal(search.status, 200);
    });

    it('a page past the time bound is stopped in its worker, names the bound, and the next page converts', async () => {
      // The bound's timer runs out as soon as the page is handed to its worker, however fast it converts.
      await start();
      await t.restart({ conversion: { timeoutMs: 50 }, conversionTimer: expiredAtOnce });
      const reply = await t.gw('POST', '/v1/tools/web/crawl', { urls: [`${siteUrl}/long`] });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json.results[0].content, '');
      assert.match(reply.json.results[0].error, /^conversion stopped: long\.html took longer than the limit of 0\.05 s\.$/);
      const search = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'gearbox oil' });
      assert.equal(search.status, 200);
      await t.restart({ conversion: { timeoutMs: 60_000 }, conversionTimer: undefined });
      const next = await t.gw('POST', '/v1/tools/web/crawl', { urls: [`${siteUrl}/ok`] });
      assert.equal(next.json.results[0].title, 'Ok');
      assert.match(next.json.results[0].content, /fine page/);
    });

    it('HTML and PDF pages past the output bound fail naming it', async () => {
      await start();
      await t.restart({ conversion: { maxOutputBytes: 2000 } });
      const reply = await t.gw('POST', '/v1/tools/web/crawl', { urls: [`${siteUrl}/long`, `${siteUrl}/report.pdf`, `${siteUrl}/ok`] });
      assert.equal(reply.status, 200, reply.text);
      const [html, pdf, ok] = reply.json.results;
      assert.match(html.error, /^conversion stopped: long\.html turns into more than 2(\.0)? KiB of text\.$/);
      assert.match(pdf.error, /^conversion stopped: report\.pdf turns into more than 2(\.0)? KiB of text\.$/);
      assert.match(ok.content, /fine page/);
      assert.equal(ok.error, undefined);
    });
  });
});
