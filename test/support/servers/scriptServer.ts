/**
 * A small scriptable HTTP server on 127.0.0.1 for API tests: routes answer with whatever a test
 * scripts (including faults: slow answers, dropped connections, split streams), and every
 * request is recorded so a test can check what was (or was not) sent.
 */
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The query as the client wrote it, with its `?` ('' without one). */
  search: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON, when it is JSON. */
  json?: any;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

interface Route {
  method: string;
  path: string | RegExp;
  handler: Handler;
  once: boolean;
}

export class ScriptServer {
  readonly requests: RecordedRequest[] = [];
  private routes: Route[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly scheme: 'http' | 'https',
  ) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Starts on 127.0.0.1 (a random port unless one is given); with `tls`, it speaks https. */
  static async start(options: { port?: number; tls?: { key: string; cert: string } } = {}): Promise<ScriptServer> {
    let self: ScriptServer | undefined;
    const handler = (req: IncomingMessage, res: ServerResponse) => void self!.handle(req, res);
    const server: Server = options.tls ? createHttpsServer(options.tls, handler) : createServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    self = new ScriptServer(server, (server.address() as AddressInfo).port, options.tls ? 'https' : 'http');
    return self;
  }

  get url(): string {
    return `${this.scheme}://127.0.0.1:${this.port}`;
  }

  /** A route that answers every matching request, after any `once` routes. */
  on(method: string, path: string | RegExp, handler: Handler): this {
    this.routes.push({ method, path, handler, once: false });
    return this;
  }

  /** A route used for one matching request only; `once` routes are used in the order added. */
  once(method: string, path: string | RegExp, handler: Handler): this {
    this.routes.push({ method, path, handler, once: true });
    return this;
  }

  count(method?: string, path?: string | RegExp): number {
    return this.requests.filter((r) => (!method || r.method === method) && (!path || matches(path, r.path))).length;
  }

  reset(): void {
    this.routes = [];
    this.requests.length = 0;
  }

  private async handle(raw: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(raw.url ?? '/', 'http://127.0.0.1');
    const recorded: RecordedRequest = {
      method: raw.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      search: url.search,
      headers: raw.headers,
      body,
    };
    if (/json/.test(raw.headers['content-type'] ?? '') && body.length > 0) {
      try {
        recorded.json = JSON.parse(body.toString('utf8'));
      } catch {
        // left undefined: the test can look at `body`
      }
    }
    this.requests.push(recorded);
    const sorted = [...this.routes.filter((r) => r.once), ...this.routes.filter((r) => !r.once)];
    const route = sorted.find((r) => r.method === recorded.method && matches(r.path, recorded.path));
    if (!route) {
      sendJson(res, 404, { error: { message: `No route for ${recorded.method} ${recorded.path}`, type: 'not_found_error' } });
      return;
    }
    if (route.once) this.routes.splice(this.routes.indexOf(route), 1);
    try {
      await route.handler(recorded, res, raw);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'server_error' } });
      else res.destroy();
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function matches(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === 'string' ? pattern === path : pattern.test(path);
}

// ---------------------------------------------------------------- response helpers

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType = 'text/plain',
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes `payload` in pieces cut at `cuts` (byte offsets), pausing between pieces so each is
 * its own network chunk. `end: false` leaves the response open (for idle / abort tests).
 */
export async function sendChunked(
  res: ServerResponse,
  payload: string | Buffer,
  options: {
    contentType?: string;
    cuts?: number[];
    pauseMs?: number;
    end?: boolean;
    status?: number;
    headers?: Record<string, string>;
  } = {},
): Promise<void> {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  res.writeHead(options.status ?? 200, {
    'content-type': options.contentType ?? 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...(options.headers ?? {}),
  });
  res.flushHeaders();
  const cuts = [...(options.cuts ?? []), bytes.length].filter((c) => c > 0 && c <= bytes.length).sort((a, b) => a - b);
  let start = 0;
  for (const cut of cuts) {
    if (cut <= start) continue;
    res.write(bytes.subarray(start, cut));
    start = cut;
    if (cut < bytes.length) await pause(options.pauseMs ?? 2);
  }
  if (options.end !== false) res.end();
}

/** An SSE body from OpenAI-style chunks: `data: {…}` lines and a final `data: [DONE]`. */
export function sseBody(chunks: unknown[], options: { done?: boolean } = {}): string {
  const lines = chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);
  if (options.done !== false) lines.push('data: [DONE]\n\n');
  return lines.join('');
}

/** A chat.completion.chunk with a content delta. */
export function chatChunk(content: string | undefined, extra: { role?: string; finish_reason?: string | null; usage?: unknown } = {}) {
  const delta: Record<string, unknown> = {};
  if (extra.role) delta.role = extra.role;
  if (content !== undefined) delta.content = content;
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'alpha-5-mini',
    choices: extra.usage ? [] : [{ index: 0, delta, finish_reason: extra.finish_reason ?? null }],
    ...(extra.usage ? { usage: extra.usage } : {}),
  };
}

/** Cursor pagination as the documents service does it (after/before, limit, order by created_at). */
export function listPage<T extends { id: string; created_at: number }>(
  items: readonly T[],
  query: URLSearchParams,
  options: { nullIds?: boolean; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  const order = query.get('order') === 'asc' ? 'asc' : 'desc';
  const sorted = [...items].sort((a, b) => (order === 'asc' ? a.created_at - b.created_at : b.created_at - a.created_at));
  const limit = Number(query.get('limit') ?? 10_000);
  const after = query.get('after');
  const before = query.get('before');
  let page: T[];
  let hasMore: boolean;
  if (after) {
    const rest = sorted.slice(sorted.findIndex((i) => i.id === after) + 1);
    page = rest.slice(0, limit);
    hasMore = rest.length > limit;
  } else if (before) {
    const head = sorted.slice(
      0,
      Math.max(
        0,
        sorted.findIndex((i) => i.id === before),
      ),
    );
    page = head.slice(Math.max(0, head.length - limit));
    hasMore = head.length > limit;
  } else {
    page = sorted.slice(0, limit);
    hasMore = sorted.length > limit;
  }
  return {
    object: 'list',
    data: page,
    first_id: options.nullIds ? null : (page[0]?.id ?? null),
    last_id: options.nullIds ? null : (page[page.length - 1]?.id ?? null),
    has_more: hasMore,
    ...(options.extra ?? {}),
  };
}

/** A port nothing listens on (bound and released), for "connection refused". */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
