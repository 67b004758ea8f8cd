import { renewLeaseRequestSchema } from '../../api/lifetime/schemas';
import { readJson } from '../http/body';
import { parseBody } from '../http/requestBody';
import { sendJson } from '../http/respond';
import type { Route } from '../http/router';
import type { Leases } from './leases';

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
        const { id, ttl_ms: ttl } = parseBody(renewLeaseRequestSchema, await readJson(ctx.req));
        leases.renew(id, ttl);
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
