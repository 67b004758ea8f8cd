/**
 * Test helpers for the embedded backend: a real server on 127.0.0.1 port 0 in a temporary data
 * folder, raw HTTP calls with undici, and tiny PDF / DOCX fixtures built in memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { startBackend, type BackendOptions, type RunningBackend } from '../../../src/backend';

export const TOKEN = 'test-documents-token';
export const API_KEY = 'test-gateway-key';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;

  json: any;
}

export interface TestBackend {
  backend: RunningBackend;
  url: string;
  dataDir: string;
  logs: string[];
  /** A documents-service call with the bearer token (unless headers say otherwise). */
  docs(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** A gateway call with the Api-Key (unless headers say otherwise). */
  gw(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  upload(filename: string, data: string | Uint8Array, extra?: { purpose?: string; metadata?: string }): Promise<Reply>;
  /** Uploads, attaches and waits until the store file leaves in_progress; returns the final record. */
  ingest(storeId: string, filename: string, data: string | Uint8Array, attach?: Record<string, unknown>): Promise<Reply>;
  createStore(name?: string, metadata?: Record<string, string>): Promise<string>;
  waitUntilProcessed(storeId: string, fileId: string): Promise<Reply>;
  restart(overrides?: Partial<BackendOptions>): Promise<void>;
  close(): Promise<void>;
}

export async function tempDir(prefix = 'docchat-backend-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/**
 * Runs `work` and resolves with the most Buffer/ArrayBuffer memory held at once above what was held
 * before, sampled at every turn of the event loop. Buffers live outside the V8 heap; a bound on this
 * shows what a reader keeps, not how fast it is.
 */
export async function peakBufferGrowth(work: () => Promise<unknown>): Promise<number> {
  const baseline = process.memoryUsage().arrayBuffers;
  let peak = baseline;
  let sampling = true;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    if (sampling) setImmediate(sample);
  };
  sample();
  try {
    await work();
  } finally {
    sampling = false;
  }
  return peak - baseline;
}

export async function call(
  url: string,
  method: string,
  pathname: string,
  options: { body?: unknown; headers?: Record<string, string>; raw?: string | Uint8Array } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${url}${pathname}`, { method: method as 'GET', headers, body });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

export function multipart(parts: { name: string; value?: string; filename?: string; data?: Uint8Array }[]): {
  body: Buffer;
  contentType: string;
} {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"\r\nContent-Type: application/octet-stream`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(part.data ?? part.value ?? ''), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function startTestBackend(overrides: Partial<BackendOptions> = {}): Promise<TestBackend> {
  const dataDir = overrides.dataDir ?? (await tempDir());
  const logs: string[] = [];
  let options: BackendOptions = {
    dataDir,
    token: TOKEN,
    apiKey: API_KEY,
    log: (level, message) => logs.push(`${level}: ${message}`),
    ...overrides,
  };
  let backend = await startBackend(options);
  const t: TestBackend = {
    backend,
    url: backend.url,
    dataDir,
    logs,
    docs: (method, p, body, headers) => call(t.url, method, p, { body, headers: headers ?? { authorization: `Bearer ${TOKEN}` } }),
    gw: (method, p, body, headers) => call(t.url, method, p, { body, headers: headers ?? { 'api-key': API_KEY } }),
    async upload(filename, data, extra = {}) {
      const parts = [
        { name: 'file', filename, data: typeof data === 'string' ? Buffer.from(data) : data },
        { name: 'purpose', value: extra.purpose ?? 'assistants' },
      ];
      if (extra.metadata !== undefined) parts.push({ name: 'metadata', value: extra.metadata } as never);
      const { body, contentType } = multipart(parts);
      return call(t.url, 'POST', '/v1/files', { raw: body, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType } });
    },
    async createStore(name = 'store', metadata) {
      const reply = await t.docs('POST', '/v1/vector_stores', { name, ...(metadata ? { metadata } : {}) });
      if (reply.status !== 200) throw new Error(`create store failed: ${reply.status} ${reply.text}`);
      return reply.json.id as string;
    },
    async waitUntilProcessed(storeId, fileId) {
      // Polls the real endpoint (bounded by the mocha timeout, never by a clock).
      for (;;) {
        const reply = await t.docs('GET', `/v1/vector_stores/${storeId}/files/${fileId}`);
        if (reply.status !== 200 || reply.json.status !== 'in_progress') return reply;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async ingest(storeId, filename, data, attach = {}) {
      const uploaded = await t.upload(filename, data);
      if (uploaded.status !== 200) throw new Error(`upload failed: ${uploaded.status} ${uploaded.text}`);
      const attached = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: uploaded.json.id, ...attach });
      if (attached.status !== 200) throw new Error(`attach failed: ${attached.status} ${attached.text}`);
      return t.waitUntilProcessed(storeId, uploaded.json.id);
    },
    async restart(more = {}) {
      await backend.close();
      options = { ...options, ...more };
      backend = await startBackend(options);
      t.backend = backend;
      t.url = backend.url;
    },
    async close() {
      await backend.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** Parses an SSE body into its events. */
export function parseSse(text: string): { event?: string; data: string }[] {
  return text
    .split(/\n\n/)
    .filter((block) => block.trim())
    .map((block) => {
      const event: { event?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) event.data += line.slice(6);
      }
      return event;
    });
}

// ---------------------------------------------------------------- fixtures

/** A minimal valid PDF: pages with text lines (Helvetica) and/or an image and no text. */
export function makePdf(
  pages: {
    lines?: string[];
    image?: boolean;
    scan?: { width: number; height: number; gray: Buffer };
    table?: string[][];
    /** Lines each set in its own font size (points), top to bottom. */
    sized?: { text: string; size: number }[];
    /** Text runs placed at their own positions (points from the bottom left; 12 pt unless `size`), in this drawing order. */
    /** `up`: set sideways, reading upwards from (x, y). */
    placed?: { text: string; x: number; y: number; size?: number; bold?: boolean; italic?: boolean; up?: boolean }[];
    /** Filled rectangles (ruling lines when thin), points from the bottom left. */
    rules?: { x: number; y: number; width: number; height: number }[];
  }[],
): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add('');
  add('');
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>');
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Oblique >>');
  const kids: number[] = [];
  for (const page of pages) {
    let content = '';
    let resources = '/Font << /F1 3 0 R /F2 4 0 R /F3 5 0 R >>';
    if (page.lines?.length) {
      content += `BT /F1 12 Tf 72 720 Td 16 TL\n${page.lines.map((l) => `(${l.replace(/[()\\]/g, '\\$&')}) Tj T*`).join('\n')}\nET\n`;
    }
    if (page.sized?.length) {
      let y = 740;
      for (const { text, size } of page.sized) {
        y -= size * 1.4;
        content += `BT /F1 ${size} Tf 72 ${y} Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET\n`;
      }
    }
    for (const { x, y, width, height } of page.rules ?? []) content += `${x} ${y} ${width} ${height} re f\n`;
    for (const { text, x, y, size = 12, bold, italic, up } of page.placed ?? []) {
      content += `BT /${bold ? 'F2' : italic ? 'F3' : 'F1'} ${size} Tf ${up ? `0 1 -1 0 ${x} ${y} Tm` : `${x} ${y} Td`} (${text.replace(/[()\\]/g, '\\$&')}) Tj ET\n`;
    }
    if (page.image) {
      add(
        '<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>\nstream\n\x00\xff\xff\x00\nendstream',
      );
      resources += ` /XObject << /Im1 ${objects.length} 0 R >>`;
      content += 'q 200 0 0 200 72 400 cm /Im1 Do Q\n';
    }
    if (page.table) {
      // A table as PDFs draw one: each cell a separate text run at its column's x, rows 16 pt apart.
      page.table.forEach((row, r) =>
        row.forEach((cell, c) => {
          content += `BT /F1 12 Tf ${72 + c * 160} ${500 - r * 16} Td (${cell.replace(/[()\\]/g, '\\$&')}) Tj ET\n`;
        }),
      );
    }
    if (page.scan) {
      // A scanned page: one 8-bit gray picture at 72 dpi, no text layer.
      const { width, height, gray } = page.scan;
      add(
        `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${gray.length} >>\nstream\n${gray.toString('latin1')}\nendstream`,
      );
      resources += ` /XObject << /Scan ${objects.length} 0 R >>`;
      content += `q ${width} 0 0 ${height} 20 ${792 - height - 20} cm /Scan Do Q\n`;
    }
    add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`);
    const contentId = objects.length;
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << ${resources} >> /Contents ${contentId} 0 R >>`);
    kids.push(objects.length);
  }
  objects[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A minimal DOCX (WordprocessingML in a ZIP made with jszip): paragraphs, an optional table and image. */
export async function makeDocx(options: {
  heading?: string;
  paragraphs?: string[];
  table?: string[][];
  imageOnly?: boolean;
}): Promise<Buffer> {
  const JSZip = (await import('jszip')).default;
  const zip = new JSZip();
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const para = (text: string, style?: string) =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${esc(text)}</w:t></w:r></w:p>`;
  let body = '';
  if (options.heading) body += para(options.heading, 'Heading1');
  for (const p of options.paragraphs ?? []) body += para(p);
  if (options.table) {
    body += `<w:tbl>${options.table.map((row) => `<w:tr>${row.map((cell) => `<w:tc>${para(cell)}</w:tc>`).join('')}</w:tr>`).join('')}</w:tbl>`;
  }
  if (options.imageOnly) {
    body +=
      '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="9525" cy="9525"/><wp:docPr id="1" name="Picture 1"/>' +
      '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="image1.png"/><pic:cNvPicPr/></pic:nvPicPr>' +
      '<pic:blipFill><a:blip r:embed="rIdImage1"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>';
    zip.file('word/media/image1.png', PNG_1X1);
  }
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
      '<Default Extension="png" ContentType="image/png"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    'word/_rels/document.xml.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rIdImage1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/></Relationships>',
  );
  zip.file(
    'word/document.xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ' +
      'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
      `<w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}
