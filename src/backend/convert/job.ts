/** One conversion with its chunking: what a worker runs, and what runs in-thread when there are none. */
import { chunkMarkdown, type Chunk } from '../chunking/chunker';
import { htmlTitle } from './html';
import { convertToMarkdown, type ConvertOptions } from './index';
import { decodeText } from './text';

export interface ConversionJob {
  filename: string;
  data: Uint8Array;
  options: ConvertOptions;
  /** A crawled web page: markdown and the page title, no chunks. */
  page?: boolean;
}

export interface ConversionResult {
  markdown: string;
  chunks: Chunk[];
  /**
   * File jobs: the converted file as it is stored (JSON of `{format: 1, markdown, chunks}`),
   * serialized here so a worker, not the serving thread, pays for it.
   */
  stored?: Uint8Array;
  /** The `<title>` of an HTML page (page jobs only). */
  title?: string;
}

export async function runConversion(job: ConversionJob): Promise<ConversionResult> {
  const markdown = await convertToMarkdown(job.filename, job.data, job.options);
  if (job.page) return { markdown, chunks: [], title: /\.html$/.test(job.filename) ? htmlTitle(decodeText(job.data)) : undefined };
  const chunks = chunkMarkdown(markdown);
  // A TextEncoder's buffer is its own (never Node's shared pool), so a worker can transfer it.
  const stored = new TextEncoder().encode(JSON.stringify({ format: 1, markdown, chunks }));
  return { markdown, chunks, stored };
}
