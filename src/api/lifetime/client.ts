/** Typed client of the local backend's lifetime API: leases and the request to stop. */
import type { CallOptions, ClientOptions } from '../http/options';
import { ServiceClient } from '../http/serviceClient';
import { parseRequest } from '../http/validate';
import {
  type Lease,
  leaseIdSchema,
  leaseSchema,
  type LifetimeOperation,
  type ReleasedLease,
  releasedLeaseSchema,
  renewLeaseRequestSchema,
  type Shutdown,
  shutdownSchema,
} from './schemas';

/** A heartbeat that waits longer than this is treated as not answered. */
const LEASE_TIMEOUT_MS = 10_000;

export class LeaseClient extends ServiceClient<LifetimeOperation> {
  /**
   * Lifetime calls go to this machine and answer at once: no client-side rate limit, no retries
   * (the caller's heartbeat is the retry), and a short wait for an answer.
   */
  constructor(options: ClientOptions) {
    super(
      {
        ...options,
        rateLimits: false,
        transport: { maxRetries: 0, headersTimeoutMs: LEASE_TIMEOUT_MS, bodyTimeoutMs: LEASE_TIMEOUT_MS, ...options.transport },
      },
      {
        service: 'local backend',
        auth: { header: 'authorization', value: (token) => `Bearer ${token}`, name: 'token' },
        defaultRateLimits: {},
      },
    );
  }

  /** Takes or renews the lease `id` for `ttlMs` (the backend's default when omitted). */
  async renew(id: string, ttlMs?: number, o?: CallOptions): Promise<Lease> {
    const json = parseRequest(renewLeaseRequestSchema, { id, ttl_ms: ttlMs });
    return this.http.json(this.spec('renewLease', 'POST', '/v1/local/leases', o, { json }), leaseSchema, 'lease');
  }

  /** Lets go of the lease `id`; the backend idles out once no lease is left. */
  async release(id: string, o?: CallOptions): Promise<ReleasedLease> {
    const path = `/v1/local/leases/${encodeURIComponent(parseRequest(leaseIdSchema, id, 'id'))}`;
    return this.http.json(this.spec('releaseLease', 'DELETE', path, o), releasedLeaseSchema, 'released lease');
  }

  /** Asks the backend to stop (a newer version replaces it); it answers before it stops. */
  async shutdown(o?: CallOptions): Promise<Shutdown> {
    return this.http.json(this.spec('shutdown', 'POST', '/v1/local/shutdown', o), shutdownSchema, 'shutdown answer');
  }
}
