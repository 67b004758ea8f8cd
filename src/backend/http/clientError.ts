/**
 * Requests Node's HTTP parser cannot read (an unknown method, headers past the size limit, a
 * broken request line or framing) never reach the router. They still get an answer in the
 * service's error shape, then the connection is closed: after a parse error nothing more on it
 * can be trusted.
 */
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { BackendLog } from '../options';
import { ApiError, invalid } from './errors';
import { MAX_URL_BYTES, uriTooLong } from './target';

export type ClientError = Error & { code?: string; rawPacket?: Buffer };

/** Node's default maxHeaderSize: the request line and headers together. */
const MAX_HEADER_BYTES = 16 * 1024;
/** How long a connection may keep sending after its answer before it is cut. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 1024 * 1024;

const answered = new WeakSet<Duplex>();

/** Headers past the limit: 414 when it is the request line that is too long, 431 otherwise. */
function overflowError(raw: Buffer | undefined): ApiError {
  const lineEnd = raw ? raw.indexOf('\n') : -1;
  if (raw && /^[A-Z]+ /.test(raw.subarray(0, 16).toString('latin1')) && (lineEnd < 0 || lineEnd > MAX_URL_BYTES)) return uriTooLong();
  return new ApiError({
    type: 'invalid_request_error',
    message: `The request headers are larger than the limit of ${MAX_HEADER_BYTES / 1024} KiB.`,
    code: 'request_header_fields_too_large',
    status: 431,
  });
}

function errorFor(error: ClientError): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return overflowError(error.rawPacket);
    case 'HPE_INVALID_METHOD':
      return new ApiError({
        type: 'invalid_request_error',
        message: 'The request method is not one this server knows; use GET, POST, PUT or DELETE.',
        code: 'method_not_allowed',
        status: 405,
        headers: {
          allow: 'GET, POST, PUT, DELETE',
        },
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return new ApiError({
        type: 'invalid_request_error',
        message: 'The request did not arrive in time.',
        code: 'request_timeout',
        status: 408,
      });
    case 'HPE_INVALID_URL':
      return invalid(null, 'The request target is not a valid URL path.', 'invalid_request_target');
    default:
      return invalid(null, `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`, 'invalid_http');
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

export function answerClientError(error: ClientError, socket: Duplex, log: BackendLog): void {
  if (answered.has(socket)) return;
  if (error.code === 'ECONNRESET' || !socket.writable) {
    answered.add(socket);
    socket.destroy();
    return;
  }
  answerOnSocket(socket, errorFor(error), error.code ?? error.message, log);
}

/** CONNECT asks for a tunnel; Node hands it over without a response object. */
export function answerConnect(socket: Duplex, log: BackendLog): void {
  const error = new ApiError({
    type: 'invalid_request_error',
    message: 'CONNECT is not supported: this server is not a proxy.',
    code: 'method_not_allowed',
    status: 405,
    headers: {
      allow: 'GET, POST, PUT, DELETE',
    },
  });
  answerOnSocket(socket, error, 'CONNECT', log);
}

/** Writes one error answer straight to the socket and closes it once the client has stopped sending. */
function answerOnSocket(socket: Duplex, answer: ApiError, cause: string, log: BackendLog): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  const requestId = `req_${randomBytes(12).toString('hex')}`;
  log('debug', `unreadable request -> ${answer.status} (${cause}, ${requestId})`);
  const body = JSON.stringify(answer.toBody());
  const headers = {
    ...answer.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    connection: 'close',
  };
  const head = [
    `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? 'Error'}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join('\r\n');
  socket.end(`${head}\r\n\r\n${body}`);
  // Keep reading (and dropping) what the client is still sending, so it reads the answer instead
  // of a reset; cut the connection once it has sent too much or lingered too long.
  let dropped = 0;
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) socket.destroy();
  });
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
}
