/**
 * Builds the keep-alive undici dispatcher of one client. A bundled undici is not patched by VS
 * Code's proxy support, so VS Code's rules are applied here from plain options: each request's
 * origin goes direct or through the proxy its policy names (see proxyPolicy.ts), with the trusted
 * certificates of certificates.ts.
 */
import type { SecureContext } from 'node:tls';
import type { Agent, buildConnector, Dispatcher, ProxyAgent } from 'undici';
import { secureContextFor, trustedCertificates } from './certificates';
import { ValidationError } from './errors';
import type { TransportOptions } from './options';
import { createProxyPolicy, type ProxyPolicy } from './proxyPolicy';
import { undici } from './undici';

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

const KEEP_ALIVE = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 } as const;

/** The TLS options for connections to the service (and to an https proxy). */
export function tlsOptions(options: TransportOptions): { secureContext?: SecureContext; rejectUnauthorized: boolean } {
  const ca = trustedCertificates({
    ca: options.ca,
    caFiles: options.caFiles,
    systemCertificates: options.systemCertificates,
    env: options.env,
  });
  // One shared context for every connection: parsing a few hundred roots per handshake would cost more.
  return { ...(ca ? { secureContext: secureContextFor(ca) } : {}), rejectUnauthorized: options.strictSSL !== false };
}

export type DispatcherKind = 'direct' | 'proxy';

/** Sends each request direct or through a proxy, as the policy decides for its origin. */
export interface RoutingDispatcher extends Dispatcher {
  readonly policy: ProxyPolicy;
}

type RoutingDispatcherClass = new (
  policy: ProxyPolicy,
  makeDirect: () => Agent,
  makeProxy: (uri: string) => ProxyAgent,
) => RoutingDispatcher;
let routingDispatcherClass: RoutingDispatcherClass | undefined;

/** The class extends undici's Dispatcher, so it is defined once undici is loaded (the first client built). */
function routingDispatcher(): RoutingDispatcherClass {
  if (routingDispatcherClass) return routingDispatcherClass;
  class Routing extends undici().Dispatcher implements RoutingDispatcher {
    private direct?: Agent;
    private readonly proxies = new Map<string, ProxyAgent>();

    constructor(
      readonly policy: ProxyPolicy,
      private readonly makeDirect: () => Agent,
      private readonly makeProxy: (uri: string) => ProxyAgent,
    ) {
      super();
    }

    private agentFor(origin: string): Dispatcher {
      const proxy = this.policy.proxyFor(origin);
      if (!proxy) return (this.direct ??= this.makeDirect());
      let agent = this.proxies.get(proxy);
      if (!agent) this.proxies.set(proxy, (agent = this.makeProxy(proxy)));
      return agent;
    }

    override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      return this.agentFor(String(options.origin)).dispatch(options, handler);
    }

    private all(): Dispatcher[] {
      return [...(this.direct ? [this.direct] : []), ...this.proxies.values()];
    }

    override close(): Promise<void>;
    override close(callback: () => void): void;
    override close(callback?: () => void): Promise<void> | void {
      const done = Promise.all(this.all().map((d) => d.close())).then(() => undefined);
      if (!callback) return done;
      void done.then(callback, callback);
    }

    override destroy(): Promise<void>;
    override destroy(err: Error | null): Promise<void>;
    override destroy(callback: () => void): void;
    override destroy(err: Error | null, callback: () => void): void;
    override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
      const err = typeof a === 'function' ? null : (a ?? null);
      const callback = typeof a === 'function' ? a : b;
      const done = Promise.all(this.all().map((d) => d.destroy(err))).then(() => undefined);
      if (!callback) return done;
      void done.then(callback, callback);
    }
  }
  return (routingDispatcherClass = Routing);
}

function checkProxyUrl(proxy: string, field: string): void {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    throw new ValidationError(field, 'an absolute URL', `The proxy setting "${redactUserInfo(proxy)}" is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(
      field,
      'an http:// or https:// URL',
      `The proxy "${redactUserInfo(proxy)}" must start with http:// or https:// (DocChat does not speak ${url.protocol.replace(':', '')} proxies).`,
    );
  }
}

export function createDispatcher(options: TransportOptions = {}): {
  dispatcher: RoutingDispatcher;
  kind: DispatcherKind;
  policy: ProxyPolicy;
  /** Builds now what the first connection to `origin` would (the TLS trust store for https). */
  warm(origin: string): void;
} {
  if (options.proxy) checkProxyUrl(options.proxy, 'transport.proxy');
  const policy = createProxyPolicy({ proxy: options.proxy, noProxy: options.noProxy, useEnvProxy: options.useEnvProxy, env: options.env });
  for (const proxy of policy.proxies) checkProxyUrl(proxy, options.proxy ? 'transport.proxy' : 'HTTPS_PROXY');
  // The certificates are read and parsed at the first https connection (or by `warm`), not when
  // a client is built. Reading the system's and building a context of a few hundred roots costs
  // more than the rest of a first request; plain http (a loopback gateway) never pays it.
  let tls: ReturnType<typeof tlsOptions> | undefined;
  const tlsNow = () => (tls ??= tlsOptions(options));
  const timeout = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const connect = () => ({ ...tlsNow(), timeout });
  const authorization = options.proxyAuthorization?.trim();
  const { Agent, ProxyAgent, buildConnector: connector } = undici();
  let plain: buildConnector.connector | undefined;
  let secure: buildConnector.connector | undefined;
  const directConnect: buildConnector.connector = (target, callback) =>
    target.protocol === 'https:'
      ? (secure ??= connector(connect()))(target, callback)
      : (plain ??= connector({ timeout }))(target, callback);
  const RoutingDispatcher = routingDispatcher();
  const dispatcher = new RoutingDispatcher(
    policy,
    () => new Agent({ ...KEEP_ALIVE, connect: directConnect }),
    (uri) =>
      new ProxyAgent({
        ...KEEP_ALIVE,
        uri,
        // VS Code's http.proxyAuthorization wins over credentials in the proxy URL.
        ...(authorization ? { token: authorization } : {}),
        connect: connect(),
        requestTls: tlsNow(),
        proxyTls: tlsNow(),
      }),
  );
  return {
    dispatcher,
    kind: policy.configured ? 'proxy' : 'direct',
    policy,
    warm(origin) {
      if (origin.startsWith('https:') || policy.proxyFor(origin)) tlsNow();
    },
  };
}

/** `http://user:secret@proxy:3128` → `http://***@proxy:3128`, for messages and logs. */
export function redactUserInfo(url: string): string {
  return url.replace(/\/\/[^/@\s]*@/, '//***@');
}

/** `proxy.corp:3128` of a proxy URL, without credentials. */
export function proxyHost(proxy: string): string {
  try {
    return new URL(proxy).host;
  } catch {
    return redactUserInfo(proxy);
  }
}
