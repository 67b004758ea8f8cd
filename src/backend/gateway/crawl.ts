/**
 * Web crawl: fetch http(s) pages and return them as markdown. Pages are converted by the same
 * worker pool, under the same bounds (time, memory, HTML depth, output), as uploaded files: a
 * hostile page fails on its own and never holds the serving thread.
 */
import path from 'node:path';
import { type Dispatcher, fetch, type Response } from 'undici';
import type { ConversionJob, ConversionResult } from '../convert/job';
import { decodeText } from '../convert/text';
import { chunksOf, describe } from './upstream';

export interface CrawlResult {
  url: string;
  title?: string;
  content: string;
  error?: string;
}

const MAX_PAGE_BYTES = 5 * 1024 * 1024;
const PAGE_TIMEOUT_MS = 15_000;

async function readCapped(response: Response): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunksOf(response.body)) {
    size += chunk.byteLength;
    if (size > MAX_PAGE_BYTES) throw new Error(`the page is larger than ${MAX_PAGE_BYTES / (1024 * 1024)} MiB`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A file name whose extension tells the converter the format, from the content type. */
function nameFor(url: URL, contentType: string): string {
  const base = path.basename(url.pathname) || 'page';
  if (/pdf/.test(contentType)) return base.endsWith('.pdf') ? base : `${base}.pdf`;
  if (/wordprocessingml/.test(contentType)) return base.endsWith('.docx') ? base : `${base}.docx`;
  if (/markdown/.test(contentType)) return `${base}.md`;
  return path.extname(base) ? base : `${base}.txt`;
}

export type PageConverter = (job: ConversionJob) => Promise<ConversionResult>;

export async function crawlOne(raw: string, convert: PageConverter, signal?: AbortSignal, dispatcher?: Dispatcher): Promise<CrawlResult> {
  const url = new URL(raw);
  try {
    const signals = [AbortSignal.timeout(PAGE_TIMEOUT_MS), ...(signal ? [signal] : [])];
    const response = await fetch(url, {
      redirect: 'follow',
      signal: AbortSignal.any(signals),
      ...(dispatcher ? { dispatcher } : {}),
      headers: {
        accept: 'text/html, text/markdown, text/plain, application/pdf;q=0.9, */*;q=0.5',
        'user-agent': 'DocChat-backend/0.1 (web crawl)',
      },
    });
    if (!response.ok) return { url: raw, content: '', error: `HTTP ${response.status} ${response.statusText}`.trim() };
    const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
    const data = await readCapped(response);
    if (/json/.test(contentType)) return { url: raw, content: `\`\`\`json\n${decodeText(data).trim()}\n\`\`\`` };
    const html = /html|xml/.test(contentType) || (!contentType && /^\s*</.test(decodeText(data.subarray(0, 200))));
    const filename = html ? `${path.basename(url.pathname, path.extname(url.pathname)) || 'page'}.html` : nameFor(url, contentType);
    const { markdown, title } = await convert({ filename, data, options: { skipOcr: false, maxBytes: MAX_PAGE_BYTES }, page: true });
    return { url: raw, ...(title ? { title } : {}), content: markdown.trim() };
  } catch (error) {
    return { url: raw, content: '', error: describe(error) };
  }
}
