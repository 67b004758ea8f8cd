/**
 * A reverse proxy on 127.0.0.1 in front of the documents service that counts requests by route,
 * remembers which files were uploaded (by file name) and attached (by file id), and can keep the
 * answer of a chosen request from the client after the service acted on it — the "answer lost"
 * case of a window reloaded in the middle of a request.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hold {
  matches(route: string, nth: number): boolean;
  /** Resolves once the service answered the held request (the client never gets the answer). */
  acted: Promise<void>;
  resolve(): void;
}

/** `POST /v1/vector_stores/{id}/files` → `POST /v1/vector_stores/:id/files`. */
function routeOf(method: string, url: string): string {
  const pathname = url.split('?')[0]!;
  return `${method} ${pathname.replace(/\/(vs_|file-)[\w-]+/g, '/:id')}`;
}

export class CountingProxy {
  /** Requests the service answered with a 2xx, by route. */
  readonly counts = new Map<string, number>();
  /** Requests received, by route (a hold counts these). */
  private readonly arrivals = new Map<string, number>();
  private readonly waiters: { route: string; n: number; resolve(): void }[] = [];
  /** File names of uploads, in order. */
  readonly uploads: string[] = [];
  /** File ids of attaches, in order. */
  readonly attaches: string[] = [];
  private readonly holds: Hold[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly target: string,
  ) {}

  static async start(target: string): Promise<CountingProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const proxy = new CountingProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, target.replace(/\/$/, ''));
    server.on('request', (req, res) => void proxy.forward(req, res));
    return proxy;
  }

  count(route: string): number {
    return this.counts.get(route) ?? 0;
  }

  /** Resolves once the service answered `n` requests of `route` (counted since the last reset). */
  until(route: string, n: number, timeoutMs = 120_000): Promise<void> {
    if (this.count(route) >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${route} was answered ${this.count(route)} times, never ${n}`)), timeoutMs);
      this.waiters.push({ route, n, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  reset(): void {
    this.counts.clear();
    this.arrivals.clear();
    this.uploads.length = 0;
    this.attaches.length = 0;
  }

  /** Withholds the answer of the `nth` (1-based, counted from now) request of `route`. */
  holdAnswer(route: string, nth: number): Promise<void> {
    const start = this.arrivals.get(route) ?? 0;
    let resolve!: () => void;
    let timer: ReturnType<typeof setTimeout>;
    const acted = new Promise<void>((r, reject) => {
      resolve = () => (clearTimeout(timer), r());
      timer = setTimeout(() => reject(new Error(`request ${nth} of ${route} never came`)), 180_000);
    });
    this.holds.push({ matches: (r, n) => r === route && n === start + nth, acted, resolve });
    return acted;
  }

  /** Counts a request the service acted on (a 2xx answer), whether or not the client hears it. */
  private acted(route: string, body: Buffer): void {
    this.counts.set(route, this.count(route) + 1);
    if (route === 'POST /v1/files') {
      const name = /filename="([^"]*)"/.exec(body.toString('latin1'))?.[1];
      this.uploads.push(name ? Buffer.from(name, 'latin1').toString('utf8') : '?');
    } else if (route === 'POST /v1/vector_stores/:id/files') {
      try {
        this.attaches.push(String(JSON.parse(body.toString('utf8')).file_id));
      } catch {
        this.attaches.push('?');
      }
    }
    for (const waiter of this.waiters.filter((w) => w.route === route && this.count(route) >= w.n)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return; // the client went away before sending the whole request: the service never saw it
    }
    const body = Buffer.concat(chunks);
    const route = routeOf(req.method ?? 'GET', req.url ?? '/');
    const nth = (this.arrivals.get(route) ?? 0) + 1;
    this.arrivals.set(route, nth);
    const hold = this.holds.find((h) => h.matches(route, nth));
    const headers = { ...req.headers, host: new URL(this.target).host, 'content-length': String(body.length) };
    const upstream = httpRequest(`${this.target}${req.url}`, { method: req.method, headers }, (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (c: Buffer) => parts.push(c));
      answer.on('end', () => {
        if ((answer.statusCode ?? 500) < 300) this.acted(route, body);
        if (hold) {
          hold.resolve();
          return; // the client never hears back
        }
        if (res.destroyed) return;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.end(Buffer.concat(parts));
      });
    });
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
