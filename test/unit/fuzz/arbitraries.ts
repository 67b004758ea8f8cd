/**
 * fast-check arbitraries for the backend fuzz suite: requests built from the real routes with
 * hostile ids, queries, methods, headers and bodies, plus well-formed writes whose
 * acknowledgement the suite keeps in a ledger, and hostile files to convert.
 */
import fc from 'fast-check';

/** An id segment: one of the ids the server handed out so far, or raw (possibly broken) text. */
export type IdSegment = { known: 'store' | 'file'; index: number } | { raw: string };

export type BodySpec =
  { kind: 'none' } | { kind: 'bytes'; data: Uint8Array; contentType?: string } | { kind: 'multipart'; boundary: string; data: Buffer };

export interface FuzzRequest {
  method: string;
  /** A route pattern with {id} placeholders, filled from `ids` in order. */
  template: string;
  ids: IdSegment[];
  query: string;
  auth: 'documents' | 'gateway' | 'both' | 'none' | 'wrong' | 'empty';
  contentType?: string;
  headers: [string, string][];
  padHeaderBytes: number;
  body: BodySpec;
  chunked: boolean;
}

const TEMPLATES = [
  '/health',
  '/v1/vector_stores',
  '/v1/vector_stores/{id}',
  '/v1/vector_stores/{id}/files',
  '/v1/vector_stores/{id}/files/{id}',
  '/v1/vector_stores/{id}/files/{id}/content',
  '/v1/vector_stores/{id}/search',
  '/v1/files',
  '/v1/files/{id}',
  '/v1/files/{id}/content',
  '/v1/chat/completions',
  '/v1/completions',
  '/v1/completions/models',
  '/v1/models',
  '/v1/embed/models',
  '/v1/embeddings',
  '/v1/embed',
  '/v1/inference/{id}',
  '/v1/tools/skillshare',
  '/v1/tools/web/search',
  '/v1/tools/web/research',
  '/v1/tools/web/research/{id}',
  '/v1/tools/web/crawl',
  '/',
  '/v2/{id}',
  '/v1/{id}/{id}',
];

const NASTY_SEGMENTS = [
  '%',
  '%zz',
  '%E2%82',
  '%C3',
  '%ff',
  '%C0%AF',
  '%00',
  '%2F',
  '%2f..',
  '%2e%2e',
  '%2E%2E',
  '%2e',
  '..',
  '.',
  '.%2e',
  '%252e%252e',
  'a%20b',
  '%E2%82%AC',
  'vs_',
  'file-',
  '~',
  "'",
  '!',
  '*',
  ';x=1',
  ':',
];

function encodeSafely(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return Buffer.from(text, 'utf16le').toString('hex'); // a lone surrogate
  }
}

const idSegment: fc.Arbitrary<IdSegment> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ known: fc.constantFrom('store' as const, 'file' as const), index: fc.nat() }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_SEGMENTS).map((raw) => ({ raw })) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }).map((text) => ({ raw: encodeSafely(text) })) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,40}$/).map((raw) => ({ raw })) },
);

const queryString = fc
  .array(
    fc.tuple(
      fc.constantFrom('limit', 'after', 'before', 'order', 'filter', 'x', '%zz', '', 'limit%'),
      fc.oneof(
        fc.constantFrom('1', '0', '-1', '10000', '10001', 'abc', 'asc', 'desc', 'up', '%', '%zz', 'in_progress', '', '1e3'),
        fc.nat().map(String),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

const method = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') },
  { weight: 2, arbitrary: fc.constantFrom('PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'CONNECT') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,10}$/) },
);

/** Headers whose framing meaning would turn the request into another test (hangs by design). */
const RESERVED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'expect',
  'upgrade',
  'content-type',
  'authorization',
  'api-key',
  'te',
  'trailer',
]);

const extraHeaders = fc.array(
  fc.tuple(
    fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((name) => !RESERVED.has(name)),
    fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,60}$/),
  ),
  { maxLength: 3 },
);

const contentType = fc.option(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'multipart/form-data; boundary=fuzzb',
    'multipart/form-data',
    'application/x-www-form-urlencoded',
    '',
    'application/jsonx',
    '*/*',
  ),
  { nil: undefined },
);

const metadata = fc.dictionary(fc.string({ maxLength: 70 }), fc.string({ maxLength: 600 }), { maxKeys: 18 });

/** Objects near what the endpoints expect, so validation deeper than "is it JSON" runs too. */
const nearlyValidJson = fc
  .record(
    {
      name: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,63}$/), fc.string({ maxLength: 80 })),
      metadata: fc.oneof(metadata, fc.jsonValue({ maxDepth: 2 })),
      query: fc.oneof(fc.string({ maxLength: 200 }), fc.integer()),
      file_id: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(null)),
      max_num_results: fc.integer({ min: -5, max: 60 }),
      model: fc.constantFrom('docchat-local', 'docchat-local-embedding', 'gpt-x', ''),
      messages: fc.oneof(fc.constant([{ role: 'user', content: 'hello' }]), fc.jsonValue({ maxDepth: 2 })),
      input: fc.oneof(fc.string({ maxLength: 100 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 })),
      prompt: fc.string({ maxLength: 100 }),
      project_code: fc.constantFrom('NA', 'X1'),
      stream: fc.boolean(),
      dimensions: fc.integer({ min: -1, max: 5000 }),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));

const filename = fc.oneof(
  fc.constantFrom(
    'a.txt',
    'b.md',
    'c.html',
    'd.pdf',
    'e.docx',
    '../../x.txt',
    '',
    'evil"x.txt',
    'C:\\tmp\\y.md',
    '.hidden',
    'x'.repeat(300),
  ),
  fc.string({ maxLength: 40 }),
);

const multipartBody = fc
  .record({
    boundary: fc.constantFrom('fuzzb', 'x', '----b0undary'),
    filename,
    data: fc.uint8Array({ maxLength: 2048 }),
    purpose: fc.option(fc.constantFrom('assistants', 'user_data', 'nope', ''), { nil: undefined }),
    metadata: fc.option(fc.oneof(fc.json({ maxDepth: 2 }), fc.string({ maxLength: 50 })), { nil: undefined }),
    cut: fc.nat({ max: 100 }),
  })
  .map(({ boundary, filename: name, data, purpose, metadata: meta, cut }) => {
    const parts: Buffer[] = [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`),
      Buffer.from(data),
      Buffer.from('\r\n'),
    ];
    if (purpose !== undefined) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n${purpose}\r\n`));
    }
    if (meta !== undefined) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${meta}\r\n`));
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    const whole = Buffer.concat(parts);
    // One body in ten is cut short (a broken upload).
    return { kind: 'multipart' as const, boundary, data: cut < 10 ? whole.subarray(0, Math.floor((whole.length * cut) / 10)) : whole };
  });

const body: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 3, arbitrary: fc.json({ maxDepth: 3 }).map((text) => ({ kind: 'bytes' as const, data: Buffer.from(text) })) },
  { weight: 4, arbitrary: nearlyValidJson.map((text) => ({ kind: 'bytes' as const, data: Buffer.from(text) })) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 1024 }).map((data) => ({ kind: 'bytes' as const, data })) },
  { weight: 2, arbitrary: multipartBody },
  // Past the 1 MiB JSON limit.
  { weight: 1, arbitrary: fc.constant({ kind: 'bytes' as const, data: Buffer.from(`{"name":"${'n'.repeat(1_100_000)}"}`) }) },
);

export const randomRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method,
  template: fc.constantFrom(...TEMPLATES),
  ids: fc.array(idSegment, { minLength: 2, maxLength: 2 }),
  query: queryString,
  auth: fc.constantFrom('documents' as const, 'gateway' as const, 'both' as const, 'none' as const, 'wrong' as const, 'empty' as const),
  contentType,
  headers: extraHeaders,
  padHeaderBytes: fc.oneof({ weight: 30, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(9_000, 20_000) }),
  body,
  chunked: fc.boolean(),
});

const base = { query: '', auth: 'both' as const, headers: [] as [string, string][], padHeaderBytes: 0, chunked: false };

/** Well-formed writes: their acknowledgement is recorded and checked at the end. */
export const validWrite: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc
    .record({
      name: fc.stringMatching(/^[A-Za-z0-9_-]{1,63}$/),
      metadata: fc.dictionary(fc.stringMatching(/^[a-z]{1,10}$/), fc.string({ maxLength: 30 }), { maxKeys: 3 }),
    })
    .map((json): FuzzRequest => ({
      ...base,
      method: 'POST',
      template: '/v1/vector_stores',
      ids: [],
      contentType: 'application/json',
      body: { kind: 'bytes', data: Buffer.from(JSON.stringify(json)) },
    })),
  fc
    .record({ name: fc.stringMatching(/^[a-z0-9]{1,12}\.(txt|md)$/), text: fc.string({ minLength: 1, maxLength: 200 }) })
    .map(({ name, text }): FuzzRequest => {
      const boundary = 'writeb';
      const data = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n${text}\r\n--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--${boundary}--\r\n`,
      );
      return {
        ...base,
        method: 'POST',
        template: '/v1/files',
        ids: [],
        contentType: `multipart/form-data; boundary=${boundary}`,
        body: { kind: 'multipart', boundary, data },
      };
    }),
  fc.record({ kind: fc.constantFrom('store' as const, 'file' as const), index: fc.nat() }).map(({ kind, index }): FuzzRequest => ({
    ...base,
    method: 'DELETE',
    template: kind === 'store' ? '/v1/vector_stores/{id}' : '/v1/files/{id}',
    ids: [{ known: kind, index }],
    body: { kind: 'none' },
  })),
);

/** Files built to trip converters: deep HTML, random bytes under every extension, broken PDF and DOCX headers. */
export const hostileFile: fc.Arbitrary<{ name: string; data: Buffer }> = fc.oneof(
  fc
    .record({
      depth: fc.integer({ min: 0, max: 5000 }),
      tag: fc.constantFrom('div', 'b', 'ul', 'table', 'span', 'p', 'li'),
      text: fc.string({ maxLength: 50 }),
    })
    .map(({ depth, tag, text }) => ({
      name: 'deep.html',
      data: Buffer.from(`<html><body>${`<${tag}>`.repeat(depth)}${text}${`</${tag}>`.repeat(depth)}</body></html>`),
    })),
  fc
    .record({
      ext: fc.constantFrom('txt', 'md', 'html', 'pdf', 'docx', 'bin', 'json', 'py', 'csv'),
      data: fc.uint8Array({ maxLength: 4096 }),
    })
    .map(({ ext, data }) => ({ name: `random.${ext}`, data: Buffer.from(data) })),
  fc.uint8Array({ maxLength: 2048 }).map((data) => ({ name: 'broken.pdf', data: Buffer.concat([Buffer.from('%PDF-1.4\n'), data]) })),
  fc
    .uint8Array({ maxLength: 2048 })
    .map((data) => ({ name: 'broken.docx', data: Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), data]) })),
  fc.string({ unit: 'grapheme', maxLength: 2000 }).map((text) => ({ name: 'unicode.md', data: Buffer.from(text) })),
);
