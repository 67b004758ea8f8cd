import type { IncomingMessage } from 'node:http';
import { ApiError, invalid } from './errors';

export function tooLarge(limit: number, message = `The request body is larger than the limit of ${formatBytes(limit)}.`): ApiError {
  return new ApiError({ type: 'request_too_large', message, code: 'request_too_large', status: 413, headers: { connection: 'close' } });
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/**
 * How much of a refused body is read and thrown away before the answer goes out. Closing the
 * connection while the client is still sending makes it see a reset instead of the answer, so
 * the rest of the body is drained first; past this bound the connection is cut after the answer.
 */
export const MAX_DISCARD_BYTES = 256 * 1024 * 1024;

/**
 * Reads and drops what is left of the body. Resolves true once the body has ended, false when
 * more than `bound` bytes were dropped (the caller then closes the connection) or the request
 * broke off.
 */
export function discardBody(req: IncomingMessage, bound = MAX_DISCARD_BYTES): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let dropped = 0;
    const finish = (ended: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onFail);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > bound) finish(false);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(req.readableEnded);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onFail);
    req.resume();
  });
}

/**
 * Reads the whole body, refusing more than `limit` bytes. Past the limit nothing more is
 * stored; the rest is drained (up to MAX_DISCARD_BYTES) before the 413 is thrown, so the
 * client has finished sending when the answer arrives and reads it instead of a reset.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return discardBody(req).then(() => Promise.reject(tooLarge(limit)));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        void discardBody(req).then(() => reject(tooLarge(limit)));
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

/** `application/json` or a `+json` type, with or without parameters. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * The JSON body of a request. A body sent with another content type is refused with 415; one
 * sent without a content type is read as JSON (curl and small scripts often omit it).
 */
export async function readJson(req: IncomingMessage, limit = MAX_JSON_BYTES): Promise<Record<string, unknown>> {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !JSON_TYPE.test(contentType.trim())) {
    await discardBody(req);
    throw new ApiError({
      type: 'invalid_request_error',
      message: `The request body must be JSON: send "Content-Type: application/json" (got ${JSON.stringify(contentType.slice(0, 100))}).`,
      code: 'unsupported_media_type',
      status: 415,
    });
  }
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
