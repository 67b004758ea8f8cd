/**
 * Entry of a conversion worker thread (bundled as dist/convert-worker.js): converts and chunks
 * the files the pool sends, one at a time, and answers with the result or the ConversionError.
 */
import { parentPort } from 'node:worker_threads';
import { ConversionError } from './errors';
import { runConversion, type ConversionJob } from './job';

export type WorkerReply =
  | { ready: true }
  | { id: number; ok: true; result: Awaited<ReturnType<typeof runConversion>> }
  | { id: number; ok: false; code?: string; message: string };

parentPort?.on('message', async ({ id, job }: { id: number; job: ConversionJob }) => {
  let reply: WorkerReply;
  try {
    reply = { id, ok: true, result: await runConversion(job) };
  } catch (error) {
    reply =
      error instanceof ConversionError
        ? { id, ok: false, code: error.code, message: error.message }
        : { id, ok: false, message: (error as Error)?.message ?? String(error) };
  }
  // The stored file is moved, not copied: the serving thread only writes it to disk.
  const stored = reply.ok ? reply.result.stored : undefined;
  parentPort!.postMessage(reply, stored ? [stored.buffer as ArrayBuffer] : []);
});
// Loaded: the pool starts a conversion's clock only from here, so start-up never counts against it.
parentPort?.postMessage({ ready: true });
