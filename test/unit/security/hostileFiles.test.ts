/**
 * Hostile files against the embedded backend: path traversal in file names and ids, files beyond
 * the upload limit (declared and streamed), a file beyond the conversion limit, a DOCX zip bomb
 * and corrupt PDFs. Each fails on its own with a clear message (413, or the store file's
 * `last_error`), nothing is written outside the data folder, and the server keeps answering.
 */
import * as assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import { Readable } from 'node:stream';
import { checkDocxArchive } from '../../../src/backend/convert/zipGuard';
import { makeDocx, makePdf, peakBufferGrowth, startTestBackend, tempDir, TOKEN, type TestBackend } from '../backend/helpers';

const MAX_UPLOAD = 1024 * 1024;
const MAX_CONVERT = 256 * 1024;
const auth = { authorization: `Bearer ${TOKEN}` };

async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    out.push(path.relative(dir, path.join(entry.parentPath ?? (entry as { path?: string }).path ?? dir, entry.name)));
  }
  return out.sort();
}

/**
 * A DOCX whose main document inflates to `megabytes` MiB of text from a small archive (made with
 * jszip). `documentPath` moves the document elsewhere (the package relationship names it);
 * `lyingSizes` rewrites the sizes the archive declares for what it unpacks to.
 */
async function zipBombDocx(megabytes: number, options: { documentPath?: string; lyingSizes?: boolean } = {}): Promise<Buffer> {
  const JSZip = (await import('jszip')).default;
  const documentPath = options.documentPath ?? 'word/document.xml';
  const zip = new JSZip();
  const valid = await JSZip.loadAsync(await makeDocx({ paragraphs: ['x'] }));
  for (const name of Object.keys(valid.files)) {
    if (name === 'word/document.xml' || valid.files[name]!.dir) continue;
    let content = await valid.files[name]!.async('string');
    if (name === '_rels/.rels') {
      assert.match(content, /Target="\/?word\/document\.xml"/, 'the package relationship names the document');
      content = content.replace(/Target="\/?word\/document\.xml"/, `Target="${documentPath}"`);
    }
    zip.file(name, content);
  }
  const filler = 'A'.repeat(megabytes * 1024 * 1024);
  zip.file(
    documentPath,
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${filler}</w:t></w:r></w:p></w:body></w:document>`,
  );
  const archive = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
  if (options.lyingSizes) {
    // Every local header and central directory entry claims its part unpacks to 1 KiB.
    for (let at = 0; at + 46 <= archive.length; at++) {
      const signature = archive.readUInt32LE(at);
      if (signature === 0x04034b50) archive.writeUInt32LE(1024, at + 22);
      else if (signature === 0x02014b50) archive.writeUInt32LE(1024, at + 24);
    }
  }
  return archive;
}

describe('hostile files against the backend', function () {
  this.timeout(120_000);
  let t: TestBackend;
  let parentDir: string;
  let storeId: string;

  before(async () => {
    // The data folder sits alone in a folder of its own, so "nothing new next to it" sees only this backend.
    parentDir = await tempDir('docchat-hostile-');
    t = await startTestBackend({
      rateLimits: false,
      maxUploadBytes: MAX_UPLOAD,
      maxConvertBytes: MAX_CONVERT,
      dataDir: path.join(parentDir, 'data'),
    });
    storeId = await t.createStore('hostile');
  });
  after(async () => {
    await t.close();
    await rm(parentDir, { recursive: true, force: true });
  });

  /** After every hostile request the server still does real work. */
  async function stillServing(): Promise<void> {
    const done = await t.ingest(storeId, `ok-${Math.random().toString(36).slice(2)}.md`, '# Fine\n\nstill serving');
    assert.equal(done.json.status, 'completed', 'a follow-up ingest succeeds');
  }

  async function failsWith(filename: string, data: Uint8Array, lastError: RegExp): Promise<void> {
    const record = await t.ingest(storeId, filename, data);
    assert.equal(record.status, 200);
    assert.equal(record.json.status, 'failed', `${filename} should fail, got ${record.json.status}`);
    assert.match(record.json.last_error, lastError);
    await stillServing();
  }

  describe('path traversal', () => {
    const names = [
      '../../../../etc/passwd',
      '..\\..\\windows\\win.ini',
      '/etc/shadow.md',
      'a/../../b.md',
      '....//....//x.md',
      '%2e%2e%2fy.md',
      'C:\\temp\\z.md',
    ];
    for (const name of names) {
      it(`keeps only the base name of ${JSON.stringify(name)} and writes inside the data folder`, async () => {
        const parent = path.dirname(t.dataDir);
        const before = (await readdir(parent)).sort();
        const uploaded = await t.upload(name, '# traversal\n\ncontent');
        assert.equal(uploaded.status, 200, uploaded.text);
        const stored = uploaded.json.filename as string;
        assert.ok(!stored.includes('/') && !stored.includes('\\'), `stored name ${stored}`);
        assert.notEqual(stored, '..');
        assert.deepEqual((await readdir(parent)).sort(), before, 'nothing new next to the data folder');
        for (const file of await listTree(t.dataDir)) assert.ok(!file.startsWith('..'), file);
        const content = await t.docs('GET', `/v1/files/${uploaded.json.id}/content`);
        assert.equal(content.text, '# traversal\n\ncontent');
        assert.doesNotMatch(String(content.headers['content-disposition']), /[\r\n]|\.\.\//);
      });
    }

    it('refuses ids with traversal in the path without reading outside', async () => {
      for (const id of ['..%2F..%2Fstate', '..%2fchunks', '%2e%2e', 'file-x%00.json', '..']) {
        const reply = await t.docs('GET', `/v1/files/${id}/content`);
        assert.ok(reply.status === 404 || reply.status === 400, `${id}: ${reply.status}`);
        assert.equal(
          reply.json?.error?.type === 'not_found_error' || reply.json?.error?.type === 'invalid_request_error',
          true,
          reply.text,
        );
      }
      await stillServing();
    });

    it('keeps a name holding CR/LF out of the response headers (encoded in Content-Disposition)', async () => {
      // The multipart header itself stays one line: the CR/LF arrive percent-encoded, as browsers
      // send them, and the parser decodes them, so the stored name really holds a line break.
      const name = 'evil\r\nSet-Cookie: a=b.md';
      const uploaded = await t.upload('evil%0D%0ASet-Cookie: a=b.md', 'x');
      assert.equal(uploaded.status, 200, uploaded.text);
      assert.equal(uploaded.json.filename, name, 'the stored name holds the CR/LF the upload carried');
      const content = await t.docs('GET', `/v1/files/${uploaded.json.id}/content`);
      assert.equal(content.status, 200, content.text);
      assert.equal(content.text, 'x');
      assert.equal(content.headers['set-cookie'], undefined);
      const disposition = String(content.headers['content-disposition']);
      assert.equal(disposition, `attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
      assert.doesNotMatch(disposition, /[\r\n]/);
      await stillServing();
    });
  });

  describe('huge files', () => {
    it('answers 413 to an upload whose declared size is past the limit', async () => {
      const reply = await t.upload('big.txt', Buffer.alloc(MAX_UPLOAD + 1, 'a'));
      assert.equal(reply.status, 413);
      assert.equal(reply.json.error.type, 'request_too_large');
      assert.match(reply.json.error.message, /larger than the (upload )?limit of 1 MiB/);
      await stillServing();
    });

    it('answers 413 to a streamed upload (no Content-Length) that keeps going past the limit', async () => {
      const boundary = 'streamboundary';
      async function* body() {
        yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="stream.txt"\r\n\r\n`);
        for (let sent = 0; sent < 3 * MAX_UPLOAD; sent += 64 * 1024) yield Buffer.alloc(64 * 1024, 'b');
        yield Buffer.from(`\r\n--${boundary}--\r\n`);
      }
      const reply = await request(`${t.url}/v1/files`, {
        method: 'POST',
        headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Readable.from(body()),
      });
      const json = JSON.parse(await reply.body.text());
      assert.equal(reply.statusCode, 413);
      assert.equal(json.error.type, 'request_too_large');
      await stillServing();
    });

    it('fails a file past the conversion limit with a clear last_error', async () => {
      await failsWith(
        'large.md',
        Buffer.alloc(MAX_CONVERT + 1, 'c'),
        /too large to convert: 256 KiB.*limit is 256 KiB|too large to convert/,
      );
    });
  });

  describe('DOCX zip bomb', () => {
    it('fails a small DOCX that would unpack to 100 MiB, with a last_error naming the limit', async () => {
      const bomb = await zipBombDocx(100);
      assert.ok(bomb.length < 512 * 1024, `the bomb is small (${bomb.length} bytes)`);
      await failsWith(
        'bomb.docx',
        bomb,
        /^bomb\.docx unpacks to more than 64 MiB, so DocChat does not convert it \(it may be a zip bomb\)\.$/,
      );
    });

    it('stops inflating a bomb as soon as it passes the limit, holding no more than the limit', async () => {
      // The guard itself, in this process, with a 1 MiB limit: it may hold what it inflated up to
      // the limit (to measure the XML's depth), never the 100 MiB the part unpacks to. Buffers live
      // outside the V8 heap, so the peak of `arrayBuffers` is sampled between the inflater's chunks.
      const bomb = await zipBombDocx(100);
      const limit = 1024 * 1024;
      const held = await peakBufferGrowth(() =>
        assert.rejects(checkDocxArchive('bomb.docx', bomb, 1000, limit), /bomb\.docx unpacks to more than 1 MiB/),
      );
      assert.ok(held < 16 * limit, `held ${Math.round(held / 1024 / 1024)} MiB while checking a 1 MiB limit`);
    });

    it('fails a bomb whose archive claims small sizes: only what inflates counts', async () => {
      await failsWith('lying.docx', await zipBombDocx(100, { lyingSizes: true }), /unpacks to more than 64 MiB.*zip bomb/);
      await stillServing();
    });

    it('fails a bomb hidden under word/media/ that the package names as its document', async () => {
      await failsWith(
        'media.docx',
        await zipBombDocx(100, { documentPath: 'word/media/image1.xml' }),
        /unpacks to more than 64 MiB.*zip bomb/,
      );
      await stillServing();
    });

    it('fails a DOCX that is not a ZIP, or a ZIP cut short', async () => {
      await failsWith('notzip.docx', Buffer.from('PK\u0003\u0004 this is not really a zip'), /corrupt DOCX/);
      const good = await makeDocx({ paragraphs: ['hello'] });
      await failsWith('cut.docx', good.subarray(0, Math.floor(good.length / 2)), /corrupt DOCX/);
    });

    it('still converts a normal DOCX', async () => {
      const record = await t.ingest(storeId, 'normal.docx', await makeDocx({ heading: 'Normal', paragraphs: ['plain words'] }));
      assert.equal(record.json.status, 'completed', record.json.last_error);
    });
  });

  describe('corrupt PDFs', () => {
    const valid = makePdf([{ lines: ['A real line of text'] }]);
    // The sentence each one gets: "is a corrupt PDF" with the reader's reason, or "contains no text"
    // when PDF.js opens it but finds no text in it.
    const corrupt = 'is a corrupt PDF and cannot be read \\(Invalid PDF structure\\.\\)\\.';
    const noText = 'contains no text\\.';
    const cases: [string, Buffer, string][] = [
      ['only a header', Buffer.from('%PDF-1.7\n'), corrupt],
      [
        'a header and garbage',
        Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))]),
        corrupt,
      ],
      ['cut in half', valid.subarray(0, Math.floor(valid.length / 2)), corrupt],
      [
        'a compressed content stream of garbage',
        Buffer.from(
          valid
            .toString('latin1')
            .replace(
              /<< \/Length \d+ >>\nstream\n[\s\S]*?endstream/,
              '<< /Length 64 /Filter /FlateDecode >>\nstream\n' + 'z'.repeat(64) + '\nendstream',
            ),
          'latin1',
        ),
        noText,
      ],
      [
        'an object loop',
        Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 1 0 R >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1'),
        noText,
      ],
    ];
    it('recovers a PDF whose xref table is broken (PDF.js rebuilds it), and keeps serving', async () => {
      const broken = Buffer.from(valid.toString('latin1').replace(/xref\n[\s\S]*?trailer/, 'xref\n0 99\nGARBAGE\ntrailer'), 'latin1');
      const record = await t.ingest(storeId, 'broken-xref.pdf', broken);
      assert.equal(record.json.status, 'completed', record.json.last_error);
      const content = await t.docs('GET', `/v1/vector_stores/${storeId}/files/${record.json.id}/content`);
      assert.match(JSON.stringify(content.json), /A real line of text/);
      await stillServing();
    });

    for (const [what, data, sentence] of cases) {
      it(`fails a PDF with ${what}, and keeps serving`, async () => {
        const name = `${what.replace(/\W+/g, '-')}.pdf`;
        // Anchored on the whole sentence: the name alone (".pdf") must not be enough to match.
        await failsWith(name, data, new RegExp(`^${name.replace(/\./g, '\\.')} ${sentence}$`));
      });
    }
  });
});
