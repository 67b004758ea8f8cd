import type { CallOptions, ClientOptions } from './options';
import { type RequestSpec, Transport, type TransportConfig } from './transport';

/** What both API clients share: one transport per service, closing it, and how a call is described. */
export abstract class ServiceClient<Operation extends string> {
  protected readonly http: Transport;
  protected readonly log?: ClientOptions['log'];

  protected constructor(options: ClientOptions, service: Omit<TransportConfig, keyof ClientOptions>) {
    this.log = options.log;
    this.http = new Transport({ ...options, ...service });
  }

  /** Closes the keep-alive connections. */
  async close(): Promise<void> {
    return this.http.close();
  }

  protected spec(
    operation: Operation,
    method: RequestSpec['method'],
    path: string,
    o: CallOptions = {},
    extra: Partial<RequestSpec> = {},
  ): RequestSpec {
    return { operation, method, path, signal: o.signal, ...extra };
  }
}
