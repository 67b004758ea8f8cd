/**
 * This window's lease on the shared backend: taken when the window joins, renewed by a heartbeat,
 * released when the window lets go. The backend exits a while after the last lease is gone.
 * Plain Node, no `vscode` import.
 */
import { randomBytes } from 'node:crypto';
import type { LeaseClient } from '../../api/lifetime/client';
import type { Lease } from '../../api/lifetime/schemas';

export interface BackendAddress {
  readonly url: string;
  readonly token: string;
}

/**
 * Makes the lease client for a backend. The owner of the LocalBackend passes it in: the extension
 * requires the client (and with it zod) when the window first joins a backend, not at activation,
 * while the MCP server imports it (a lazy `require` here would put zod in two minds in its bundle).
 */
export type LeaseClientFactory = (options: { baseUrl: string; token: string }) => LeaseClient;

export class WindowLease {
  readonly id = `w${process.pid}-${randomBytes(6).toString('hex')}`;
  private heartbeat: NodeJS.Timeout | undefined;
  /** One client per backend address; a new address (or token) replaces it. */
  private client: { address: BackendAddress; client: LeaseClient } | undefined;

  constructor(
    /** The window renews its lease this often; the lease lasts three times as long. */
    readonly heartbeatMs: number,
    private readonly createClient: LeaseClientFactory,
  ) {}

  get ttlMs(): number {
    return this.heartbeatMs * 3;
  }

  clientFor(address: BackendAddress): LeaseClient {
    const current = this.client;
    if (current && current.address.url === address.url && current.address.token === address.token) return current.client;
    void current?.client.close().catch(() => undefined);
    const client = this.createClient({ baseUrl: address.url, token: address.token });
    this.client = { address: { url: address.url, token: address.token }, client };
    return client;
  }

  /** Takes (or renews) the lease at `address`; throws the client's error when it cannot. */
  take(address: BackendAddress): Promise<Lease> {
    return this.clientFor(address).renew(this.id, this.ttlMs);
  }

  /** Renews the lease; false when the backend did not answer or refused. */
  async renew(address: BackendAddress): Promise<boolean> {
    try {
      await this.take(address);
      return true;
    } catch {
      return false;
    }
  }

  /** Renews every `heartbeatMs` by calling `beat` (which renews, and recovers when that fails). */
  startHeartbeat(beat: () => void): void {
    this.stopHeartbeat();
    this.heartbeat = setInterval(beat, this.heartbeatMs);
    this.heartbeat.unref?.();
  }

  stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** Lets go of the lease at `address` (best effort: a backend that is gone has no lease to keep). */
  async release(address: BackendAddress): Promise<void> {
    this.stopHeartbeat();
    await this.clientFor(address)
      .release(this.id)
      .catch(() => undefined);
  }

  /** Asks the backend at `address` to stop (a newer version replaces it). */
  async askToStop(address: BackendAddress): Promise<void> {
    await this.clientFor(address)
      .shutdown()
      .catch(() => undefined);
  }

  /** Closes the client's connections. */
  async close(): Promise<void> {
    this.stopHeartbeat();
    const current = this.client;
    this.client = undefined;
    await current?.client.close().catch(() => undefined);
  }
}
