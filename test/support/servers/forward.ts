/** Passes one request on to a server and its answer back: the body of the tests' small proxies. */
import http from 'node:http';

/**
 * Sends `req` to the same path on `base` (its own body, or `body` in place of it) and pipes the
 * answer to `res`; a failed upstream connection drops the client's.
 */
export function forward(req: http.IncomingMessage, res: http.ServerResponse, base: string, body?: Buffer): void {
  const target = new URL(req.url ?? '/', base);
  const headers = { ...req.headers, host: target.host, ...(body ? { 'content-length': String(body.length) } : {}) };
  const upstream = http.request(target, { method: req.method, headers }, (reply) => {
    res.writeHead(reply.statusCode ?? 502, reply.headers);
    reply.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  if (body) upstream.end(body);
  else req.pipe(upstream);
}
