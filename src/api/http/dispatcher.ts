/**
 * Builds the keep-alive undici dispatcher of one client. A bundled undici is not patched by VS
 * Code's proxy support, so the proxy, the no-proxy list, strict SSL and extra CAs are applied here
 * from plain options (the extension reads them from `http.*` settings and the environment).
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import { ValidationError } from './errors';
import type { TransportOptions } from './options';

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

const KEEP_ALIVE = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 } as const;

function readCaFiles(files: readonly string[]): string[] {
  return files.map((file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new ValidationError('transport.caFiles', 'a readable PEM file', `Cannot read the CA certificate file "${file}" (${reason}).`, {
        cause: error,
      });
    }
  });
}

function envProxyConfigured(): boolean {
  const env = process.env;
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
}

/** The TLS options for connections to the service (and to an https proxy). */
export function tlsOptions(options: TransportOptions): { ca?: string[]; rejectUnauthorized: boolean } {
  const extra = [...(options.ca ?? []), ...readCaFiles(options.caFiles ?? [])];
  // Passing `ca` replaces Node's roots, so keep them and add the extra ones.
  const ca = extra.length > 0 ? [...rootCertificates, ...extra] : undefined;
  return { ...(ca ? { ca } : {}), rejectUnauthorized: options.strictSSL !== false };
}

export type DispatcherKind = 'direct' | 'proxy' | 'env-proxy';

export function createDispatcher(options: TransportOptions = {}): { dispatcher: Dispatcher; kind: DispatcherKind } {
  const tls = tlsOptions(options);
  const connect = { ...tls, timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS };
  const noProxy = Array.isArray(options.noProxy) ? options.noProxy.join(',') : options.noProxy;

  if (options.proxy) {
    try {
      new URL(options.proxy);
    } catch {
      throw new ValidationError('transport.proxy', 'an absolute URL', `The proxy setting "${redactUserInfo(options.proxy)}" is not a URL.`);
    }
    const dispatcher = new EnvHttpProxyAgent({
      ...KEEP_ALIVE,
      httpProxy: options.proxy,
      httpsProxy: options.proxy,
      noProxy: noProxy ?? process.env.NO_PROXY ?? process.env.no_proxy ?? '',
      connect,
      requestTls: tls,
      proxyTls: tls,
    });
    return { dispatcher, kind: 'proxy' };
  }
  if (options.useEnvProxy !== false && envProxyConfigured()) {
    const dispatcher = new EnvHttpProxyAgent({
      ...KEEP_ALIVE,
      ...(noProxy !== undefined ? { noProxy } : {}),
      connect,
      requestTls: tls,
      proxyTls: tls,
    });
    return { dispatcher, kind: 'env-proxy' };
  }
  return { dispatcher: new Agent({ ...KEEP_ALIVE, connect }), kind: 'direct' };
}

/** `http://user:secret@proxy:3128` → `http://***@proxy:3128`, for messages and logs. */
export function redactUserInfo(url: string): string {
  return url.replace(/\/\/[^/@\s]*@/, '//***@');
}
