/** One conversion with its chunking: what a worker runs, and what runs in-thread when there are none. */
import { chunkMarkdown, type Chunk } from '../chunking/chunker';
import { convertToMarkdown, type ConvertOptions } from './index';

export interface ConversionJob {
  filename: string;
  data: Uint8Array;
  options: ConvertOptions;
}

export interface ConversionResult {
  markdown: string;
  chunks: Chunk[];
}

export async function runConversion(job: ConversionJob): Promise<ConversionResult> {
  const markdown = await convertToMarkdown(job.filename, job.data, job.options);
  return { markdown, chunks: chunkMarkdown(markdown) };
}
