/**
 * Raw HTTP/1.1 over a TCP socket, for requests no client library would send (broken encodings,
 * unknown methods, oversized request lines). Resolves with the first response on the socket, or
 * rejects with the socket error (a reset) when none arrives.
 */
import { connect } from 'node:net';

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export interface RawOptions {
  /** The answer to a HEAD request has no body, whatever its Content-Length says. */
  head?: boolean;
  /** Fail with "no answer" when the socket stays silent this long (a hang, not a slow answer). */
  idleMs?: number;
}

export function rawRequest(url: string, request: string | Buffer, options: RawOptions = {}): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    let settled = false;
    const done = (error?: Error, reply?: RawReply) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (reply) resolve(reply);
      else reject(error ?? new Error('the connection closed without an answer'));
    };
    const tryParse = (final: boolean) => {
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (final) done();
        return;
      }
      const [statusLine, ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = options.head ? 0 : headers['content-length'] !== undefined ? Number(headers['content-length']) : undefined;
      const bodyBytes = data.subarray(headEnd + 4);
      if (length !== undefined ? bodyBytes.length < length : !final) return;
      const body = bodyBytes.subarray(0, length ?? bodyBytes.length).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      done(undefined, { status: Number(statusLine!.split(' ')[1]), headers, body, json });
    };
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', (error) => {
      // An answer that arrived before the error still counts.
      tryParse(true);
      done(error);
    });
    socket.on('close', () => tryParse(true));
    if (options.idleMs) {
      socket.setTimeout(options.idleMs, () => done(new Error(`no answer: the connection stayed silent for ${options.idleMs} ms`)));
    }
    socket.write(request);
  });
}
