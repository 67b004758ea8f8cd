import { ApiError } from '../http/errors';
import { readJson } from '../http/body';
import { sendJson } from '../http/respond';
import type { Route } from '../http/router';
import type { Leases } from './leases';

const MAX_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Routes a window uses to keep the shared backend alive (`POST /v1/local/leases`, which also
 * proves the token works), to let it go, and to ask an older backend to stop.
 */
export function lifetimeRoutes(leases: Leases, info: { pid: number; version: string }, shutdown: (reason: string) => void): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/local/leases',
      service: 'documents',
      handler: async (ctx) => {
        const body = await readJson(ctx.req);
        const id = body.id;
        if (typeof id !== 'string' || !/^[\w.-]{1,100}$/.test(id)) {
          throw new ApiError({
            type: 'invalid_request_error',
            message: 'The lease id must be 1 to 100 letters, digits, dots, dashes or underscores.',
            param: 'id',
            code: 'invalid_value',
          });
        }
        const ttl = body.ttl_ms;
        if (ttl !== undefined && (typeof ttl !== 'number' || !(ttl > 0) || ttl > MAX_TTL_MS)) {
          throw new ApiError({
            type: 'invalid_request_error',
            message: `ttl_ms must be a positive number of milliseconds up to ${MAX_TTL_MS}.`,
            param: 'ttl_ms',
            code: 'invalid_value',
          });
        }
        leases.renew(id, ttl as number | undefined);
        sendJson(ctx.res, 200, { pid: info.pid, version: info.version, leases: leases.count });
      },
    },
    {
      method: 'DELETE',
      path: '/v1/local/leases/:id',
      service: 'documents',
      handler: (ctx) => {
        leases.release(ctx.params.id!);
        sendJson(ctx.res, 200, { pid: info.pid, leases: leases.count });
      },
    },
    {
      method: 'POST',
      path: '/v1/local/shutdown',
      service: 'documents',
      handler: (ctx) => {
        sendJson(ctx.res, 202, { pid: info.pid, stopping: true });
        ctx.res.once('finish', () => shutdown('shutdown requested'));
      },
    },
  ];
}
