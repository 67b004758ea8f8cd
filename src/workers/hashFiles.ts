/**
 * Entry of the hashing worker thread (bundled as dist/hash-worker.js): hashes the files it is given
 * with SHA-256 and posts the digests back in chunks. It runs off the extension host's thread, so it
 * reads with synchronous calls, which are the fastest way through thousands of small files.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

export interface HashWorkerInput {
  files: string[];
}

/** `results[i]` is the hex digest of `files[from + i]`, or `{ error }` when it could not be read. */
export interface HashWorkerChunk {
  from: number;
  results: (string | { error: string })[];
}

const SLICE = 1024 * 1024;
const CHUNK = 256;

function hashOne(file: string, buffer: Buffer): string {
  const hash = createHash('sha256');
  const fd = openSync(file, 'r');
  try {
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

if (parentPort) {
  const { files } = workerData as HashWorkerInput;
  const buffer = Buffer.allocUnsafe(SLICE);
  for (let from = 0; from < files.length; from += CHUNK) {
    const results: HashWorkerChunk['results'] = [];
    for (const file of files.slice(from, from + CHUNK)) {
      try {
        results.push(hashOne(file, buffer));
      } catch (error) {
        results.push({ error: error instanceof Error ? error.message : String(error) });
      }
    }
    parentPort.postMessage({ from, results } satisfies HashWorkerChunk);
  }
}
