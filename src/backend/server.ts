/**
 * The embedded backend: the documents service and the gateway on one HTTP server (their paths do
 * not collide). Documents need `Authorization: Bearer <token>`, the gateway `Api-Key: <key>`.
 */
import { createDispatcher, type RoutingDispatcher } from '../api/http/dispatcher';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DOCUMENTS_RATE_LIMITS } from '../api/documents/schemas';
import { ConversionPool } from './convert/pool';
import { DocumentsService } from './documents/service';
import { documentsRoutes } from './documents/routes';
import { gatewayRoutes } from './gateway/routes';
import { loadDirectory, SkillDirectory } from './gateway/skills';
import { Upstream } from './gateway/upstream';
import { authenticate } from './http/auth';
import { ApiError } from './http/errors';
import { SlidingWindowLimiter } from './http/slidingWindowLimiter';
import { discardBody } from './http/body';
import { answerClientError, answerConnect, type ClientError } from './http/clientError';
import { sendError, sendJson } from './http/respond';
import { Router, type RequestContext } from './http/router';
import { parseTarget } from './http/target';
import { DEFAULT_MAX_UPLOAD_BYTES, type BackendLog, type BackendOptions } from './options';
import { lockDataDir } from './persistence/lock';
import { Leases } from './lifetime/leases';
import { lifetimeRoutes } from './lifetime/routes';

export interface RunningBackend {
  /** e.g. http://127.0.0.1:41234 (no /v1). */
  url: string;
  port: number;
  /** The documents service itself, for seeding and tests. */
  documents: DocumentsService;
  close(): Promise<void>;
}

export const BACKEND_VERSION = '0.1.0';

function rateLimitTable(option: BackendOptions['rateLimits']): Record<string, number> {
  if (option === false) return {};
  return { ...DOCUMENTS_RATE_LIMITS, ...(typeof option === 'object' ? option : {}) };
}

export async function startBackend(options: BackendOptions): Promise<RunningBackend> {
  const log: BackendLog = options.log ?? (() => undefined);
  if (!options.token || !options.apiKey) throw new Error('startBackend needs a token and an apiKey.');
  await mkdir(options.dataDir, { recursive: true });
  const lock = await lockDataDir(options.dataDir);
  let documents: DocumentsService | undefined;
  let dispatcher: RoutingDispatcher | undefined;
  let leases: Leases | undefined;
  try {
    const skills = new SkillDirectory(loadDirectory(options.skillsFile));
    // One dispatcher for every outgoing call: the extension's proxy rules and certificates.
    dispatcher = createDispatcher(options.network ?? {}).dispatcher;
    const upstream = options.upstream ? new Upstream(options.upstream, log, dispatcher) : undefined;
    const pool = new ConversionPool(options.conversion, options.conversionTimer);
    documents = await DocumentsService.open({
      pool,
      dataDir: options.dataDir,
      maxConvertBytes: options.maxConvertBytes,
      conversion: options.conversion,
      embedder: upstream?.embedder(),
      log,
    });
    const maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
    const router = new Router();
    router.add(
      ...documentsRoutes(documents, maxUploadBytes),
      ...gatewayRoutes({ upstream, skills, convertPage: (job) => pool.convert(job), dispatcher }),
    );
    router.add({
      method: 'GET',
      path: '/health',
      service: 'public',
      handler: (ctx) => sendJson(ctx.res, 200, { status: 'ok', version: BACKEND_VERSION }),
    });
    const lifetime = options.lifetime;
    leases = lifetime
      ? new Leases({
          idleExitMs: lifetime.idleExitMs,
          defaultTtlMs: lifetime.leaseTtlMs ?? 90_000,
          onIdle: () => lifetime.onStop('no window has used the backend for a while'),
        })
      : undefined;
    if (lifetime && leases) {
      router.add(...lifetimeRoutes(leases, { pid: process.pid, version: lifetime.version }, (reason) => lifetime.onStop(reason)));
    }
    const limiter = new SlidingWindowLimiter(rateLimitTable(options.rateLimits));
    const credentials = { token: options.token, apiKey: options.apiKey };

    const server = createServer({ requireHostHeader: false }, (req, res) => {
      const requestId = `req_${randomBytes(12).toString('hex')}`;
      res.setHeader('x-request-id', requestId);
      void handle(req, res, requestId).catch((error) => {
        log('error', `Unhandled error (request ${requestId}): ${(error as Error)?.stack ?? error}`);
        if (!res.headersSent) {
          sendError(res, new ApiError({ type: 'server_error', message: `Internal error (request ${requestId}).`, code: 'internal_error' }));
        } else res.destroy();
      });
    });
    // Longer than any client keeps an idle connection (DocChat's own: 30 s), so the client always
    // drops it first: a request sent on a reused connection never races the server closing it,
    // which a busy moment on this thread would otherwise turn into ECONNRESET.
    server.keepAliveTimeout = 65_000;
    server.on('clientError', (error: ClientError, socket) => answerClientError(error, socket, log));
    server.on('connect', (_req, socket) => answerConnect(socket, log));

    async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
      const started = Date.now();
      res.on('finish', () => log('debug', `${req.method} ${req.url} -> ${res.statusCode} (${Date.now() - started} ms, ${requestId})`));
      let where = `${req.method} ${(req.url ?? '').slice(0, 200)}`;
      try {
        if (req.httpVersion === '1.1' && req.headers.host === undefined) {
          throw new ApiError({
            type: 'invalid_request_error',
            message: 'The request has no Host header (HTTP/1.1 requires one).',
            code: 'missing_host',
          });
        }
        const target = parseTarget(req.url ?? '/');
        where = `${req.method} ${target.path}`;
        const match = router.match(req.method ?? 'GET', target.segments);
        if (match.kind === 'not_found') {
          throw new ApiError({ type: 'not_found_error', message: `Unknown path ${where}.`, code: 'unknown_url' });
        }
        if (match.kind === 'method_not_allowed') {
          throw new ApiError({
            type: 'invalid_request_error',
            message: `${req.method} is not allowed on ${target.path}; use ${match.allowed.join(' or ')}.`,
            code: 'method_not_allowed',
            status: 405,
            headers: {
              allow: match.allowed.join(', '),
            },
          });
        }
        const { route, params } = match;
        if (route.service !== 'public') {
          const user = authenticate(req, route.service, credentials);
          if (route.operation) limiter.check(user, route.operation);
        }
        const ctx: RequestContext = {
          req,
          res,
          params,
          query: target.query,
          requestId,
          origin: `http://${req.headers.host ?? 'localhost'}`,
        };
        await route.handler(ctx);
      } catch (error) {
        if (res.destroyed || (error as Error)?.name === 'AbortError') return;
        let answer: ApiError;
        if (error instanceof ApiError) {
          answer = error;
          if (error.status >= 500) log('warn', `${where} (request ${requestId}): ${error.message}`);
        } else {
          log('error', `${where} failed (request ${requestId}): ${(error as Error)?.stack ?? error}`);
          answer = new ApiError({ type: 'server_error', message: `Internal error (request ${requestId}).`, code: 'internal_error' });
        }
        // The client reads the answer only once it has finished sending: drop the rest of the body first.
        if (!(await discardBody(req)) && !res.headersSent) res.setHeader('connection', 'close');
        sendError(res, answer);
      }
    }

    await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
    const port = (server.address() as AddressInfo).port;
    const host = options.host ?? '127.0.0.1';
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    await lock.setUrl(url);
    log('info', `DocChat backend listening on ${url} (data in ${options.dataDir})`);

    const service = documents;
    let closing: Promise<void> | undefined;
    return {
      url,
      port,
      documents: service,
      close: () =>
        (closing ??= (async () => {
          leases?.dispose();
          await closeServer(server);
          await service.close();
          await dispatcher?.close().catch(() => undefined);
          await lock.release();
          log('info', 'DocChat backend stopped.');
        })()),
    };
  } catch (error) {
    leases?.dispose();
    await documents?.close().catch(() => undefined);
    await dispatcher?.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops accepting, lets running requests finish for a moment, then cuts the rest (streams). */
async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), 2000);
  await closed;
  clearTimeout(timer);
}
