import type { IncomingMessage } from 'node:http';
import { ApiError, invalid } from './errors';

function tooLarge(limit: number): ApiError {
  return new ApiError(
    'request_too_large',
    `The request body is larger than the limit of ${formatBytes(limit)}.`,
    null,
    'request_too_large',
    413,
    { connection: 'close' },
  );
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/**
 * Reads the whole body, refusing more than `limit` bytes. When the limit is passed the rest of
 * the body is drained (not stored) so the client still receives the 413 instead of a reset.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** JSON bodies are small; 1 MiB is far above any valid request (metadata and queries are bounded). */
export const MAX_JSON_BYTES = 1024 * 1024;

export async function readJson(req: IncomingMessage, limit = MAX_JSON_BYTES): Promise<Record<string, unknown>> {
  const raw = await readBody(req, limit);
  if (raw.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalid(null, 'The request body is not valid JSON.', 'invalid_json');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(null, 'The request body must be a JSON object.', 'invalid_json');
  }
  return value as Record<string, unknown>;
}
