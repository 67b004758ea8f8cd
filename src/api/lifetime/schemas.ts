/**
 * The local backend's lifetime API (`/v1/local/…`): the leases a window holds to keep the shared
 * backend up, and the request that asks an older backend to stop. The backend checks requests
 * with the same schemas. Requests are tolerant of unknown fields: windows of different versions
 * share one backend, and a newer window's extra field must not be refused by an older backend.
 */
import * as z from 'zod';

export type LifetimeOperation = 'renewLease' | 'releaseLease' | 'shutdown';

/** A lease lasts at most a day; a window renews it far more often. */
export const MAX_LEASE_TTL_MS = 24 * 60 * 60 * 1000;
const LEASE_ID_MESSAGE = 'The lease id must be 1 to 100 letters, digits, dots, dashes or underscores.';
const TTL_MESSAGE = `ttl_ms must be a positive number of milliseconds up to ${MAX_LEASE_TTL_MS}.`;

export const leaseIdSchema = z.string({ error: LEASE_ID_MESSAGE }).regex(/^[\w.-]{1,100}$/, { error: LEASE_ID_MESSAGE });

export const renewLeaseRequestSchema = z.object({
  id: leaseIdSchema,
  ttl_ms: z.number({ error: TTL_MESSAGE }).positive({ error: TTL_MESSAGE }).max(MAX_LEASE_TTL_MS, { error: TTL_MESSAGE }).optional(),
});
export type RenewLeaseRequest = z.infer<typeof renewLeaseRequestSchema>;

/** The backend that holds the lease: which process, which version, how many windows hold one. */
export const leaseSchema = z.looseObject({
  pid: z.number().int(),
  version: z.string(),
  leases: z.number().int().nonnegative(),
});
export type Lease = z.infer<typeof leaseSchema>;

export const releasedLeaseSchema = z.looseObject({
  pid: z.number().int(),
  leases: z.number().int().nonnegative(),
});
export type ReleasedLease = z.infer<typeof releasedLeaseSchema>;

export const shutdownSchema = z.looseObject({
  pid: z.number().int(),
  stopping: z.boolean(),
});
export type Shutdown = z.infer<typeof shutdownSchema>;
