/**
 * Faults a real network or a misbehaving service produces, as ScriptServer handlers: rate limits,
 * 5xx, connections reset before or after the headers, streams cut at a byte, malformed JSON, an
 * HTML page with status 200, headers that never come, bodies beyond the client's cap, and a
 * redirect to another origin.
 */
import type { ServerResponse } from 'node:http';
import { type Handler, sendChunked, sendJson, sendText } from '../servers/scriptServer';
import { type OperationCase, STREAM_BODY } from './operations';

export type FaultName =
  | '429 with Retry-After'
  | '429 without Retry-After'
  | '500'
  | '502'
  | '503'
  | '502 with an HTML page'
  | '500 with broken JSON'
  | 'error event in an unexpected shape'
  | 'unknown events, then [DONE]'
  | 'reset before headers'
  | 'reset mid-body'
  | 'stream cut at a byte'
  | 'malformed JSON'
  | 'HTML page with 200'
  | 'slow headers'
  | 'oversized body'
  | 'redirect to another origin';

export interface FaultContext {
  /** Where a cross-origin redirect points (another server, which must receive nothing). */
  otherOrigin: string;
  /** The client's response cap; an oversized body is bigger than this. */
  maxResponseBytes: number;
  /** For `stream cut at a byte`: the byte offset the stream ends at. */
  cut: number;
}

/** The SSE body up to (and including) the `n`-th content event, so the parts before a fault are known. */
export function streamPrefix(events: number): string {
  return STREAM_BODY.split('\n\n')
    .slice(0, events)
    .map((e) => `${e}\n\n`)
    .join('');
}

/**
 * Destroys the connection once the response so far has reached the client: the write's callback
 * runs when the bytes are handed to the operating system, which delivers them before the close (the
 * request was read whole, so the close is a FIN after the data, not a reset that could discard it).
 */
async function resetAfter(res: ServerResponse, written: string | Buffer, contentLength?: number): Promise<void> {
  res.writeHead(200, {
    'content-type': contentLength === undefined ? 'text/event-stream' : 'application/json',
    'cache-control': 'no-cache',
    ...(contentLength === undefined ? {} : { 'content-length': String(contentLength) }),
  });
  await new Promise<void>((resolve) => res.write(written, () => resolve()));
  res.socket?.destroy();
}

export function faultHandler(fault: FaultName, op: OperationCase, ctx: FaultContext): Handler {
  switch (fault) {
    case '429 with Retry-After':
      return (_r, res) => sendJson(res, 429, {}, { 'retry-after': '2' });
    case '429 without Retry-After':
      return (_r, res) => sendJson(res, 429, {});
    case '500':
    case '502':
    case '503':
      return (_r, res) => sendText(res, Number(fault), '', 'application/json');
    case '502 with an HTML page':
      return (_r, res) =>
        sendText(
          res,
          502,
          '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
          'text/html',
        );
    case '500 with broken JSON':
      return (_r, res) => sendText(res, 500, '{"error": {"message": "Internal', 'application/json');
    case 'error event in an unexpected shape':
      // Anthropic-like `{type: "error"}` without OpenAI's `error` object, then a normal end.
      return (_r, res) =>
        sendChunked(res, `${streamPrefix(1)}data: {"type":"error","message":"Upstream model overloaded"}\n\ndata: [DONE]\n\n`, {
          contentType: 'text/event-stream',
        });
    case 'unknown events, then [DONE]':
      return (_r, res) =>
        sendChunked(res, 'data: {"kind":"status","state":"failed"}\n\ndata: {"kind":"status"}\n\ndata: [DONE]\n\n', {
          contentType: 'text/event-stream',
        });
    case 'reset before headers':
      return (_r, res) => void res.socket?.destroy();
    case 'reset mid-body':
      // Streams: three words arrive, then the connection dies. JSON: half of a declared body.
      return (_r, res) =>
        op.stream
          ? resetAfter(res, streamPrefix(4))
          : resetAfter(res, op.ok.body.slice(0, Math.floor(op.ok.body.length / 2)), Buffer.byteLength(op.ok.body));
    case 'stream cut at a byte':
      return (_r, res) => sendChunked(res, Buffer.from(STREAM_BODY, 'utf8').subarray(0, ctx.cut));
    case 'malformed JSON':
      return (_r, res) => sendText(res, 200, op.ok.body.slice(0, -3), 'application/json');
    case 'HTML page with 200':
      return (_r, res) =>
        sendText(
          res,
          200,
          '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>Company sign-in</form></body></html>',
          'text/html; charset=utf-8',
        );
    case 'slow headers':
      return () => undefined; // never answers; the client's headers timeout ends it
    case 'oversized body':
      if (op.stream) {
        // A valid start, then an endless comment: the cap stops it, the start is kept.
        return async (_r, res) => {
          await sendChunked(res, streamPrefix(4), { end: false });
          const filler = `: ${'x'.repeat(16 * 1024)}\n`;
          for (let sent = 0; sent <= ctx.maxResponseBytes * 2 && !res.destroyed; sent += filler.length) {
            if (!res.write(filler)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
          }
          res.end();
        };
      }
      return (_r, res) => {
        // Valid JSON of the right kind, padded beyond the cap, without a Content-Length up front.
        const padded =
          op.ok.contentType === 'application/json'
            ? op.ok.body.replace(/^([[{])/, `$1${' '.repeat(ctx.maxResponseBytes + 1024)}`)
            : op.ok.body + 'x'.repeat(ctx.maxResponseBytes + 1024);
        return sendChunked(res, padded, { contentType: op.ok.contentType, cuts: [1024] });
      };
    case 'redirect to another origin':
      return (r, res) => {
        res.writeHead(307, { location: `${ctx.otherOrigin}${r.path}` });
        res.end();
      };
  }
}
