/**
 * The loop of a conversion worker thread: converts and chunks the files the pool sends, one at a
 * time, reports each step it reaches (the pool stops a conversion that makes no progress), and
 * answers with the result or the ConversionError.
 */
import type { MessagePort } from 'node:worker_threads';
import { onProgress } from './context';
import { ConversionError } from './errors';
import { runConversion, type ConversionJob, type ConversionResult } from './job';

export type WorkerReply =
  | { ready: true }
  | { id: number; progress: string }
  | { id: number; ok: true; result: ConversionResult }
  | { id: number; ok: false; code?: string; message: string };

export function serveConversions(port: MessagePort, convert: (job: ConversionJob) => Promise<ConversionResult> = runConversion): void {
  port.on('message', async ({ id, job }: { id: number; job: ConversionJob }) => {
    onProgress((step) => port.postMessage({ id, progress: step } satisfies WorkerReply));
    let reply: WorkerReply;
    try {
      reply = { id, ok: true, result: await convert(job) };
    } catch (error) {
      reply =
        error instanceof ConversionError
          ? { id, ok: false, code: error.code, message: error.message }
          : { id, ok: false, message: (error as Error)?.message ?? String(error) };
    } finally {
      onProgress(undefined);
    }
    // The stored file is moved, not copied: the serving thread only writes it to disk.
    const stored = reply.ok ? reply.result.stored : undefined;
    port.postMessage(reply, stored ? [stored.buffer as ArrayBuffer] : []);
  });
  // Loaded: the pool starts a conversion's clock only from here, so start-up never counts against it.
  port.postMessage({ ready: true } satisfies WorkerReply);
}
