/**
 * Which proxy, if any, a request to an origin goes through: VS Code's rules, decided per origin.
 *
 * Proxy: the explicit one (DocChat's `docchat.network.proxy`, else VS Code's `http.proxy`), else
 * `HTTPS_PROXY` for https targets and `HTTP_PROXY` for http ones (either case; https falls back to
 * `HTTP_PROXY` as VS Code's proxy agent does). Exemptions: the settings' no-proxy list and
 * `NO_PROXY` together. Loopback is never proxied: a proxy cannot reach this machine's services.
 */
import { BlockList, isIP } from 'node:net';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ProxyInputs {
  /** Explicit proxy URL (settings). */
  proxy?: string;
  /** Extra exemptions (VS Code's `http.noProxy`), as a list or a comma-separated string. */
  noProxy?: readonly string[] | string;
  /** Read `*_PROXY` / `NO_PROXY` from `env`. Default true. */
  useEnvProxy?: boolean;
  env?: Env;
}

interface HostRule {
  kind: 'host';
  /** Lower-case host or domain without a leading dot. */
  domain: string;
  port?: number;
}

type Rule = { kind: 'all' } | HostRule | { kind: 'cidr'; list: BlockList; port?: number };

export interface ProxyPolicy {
  /** The proxy URL for this target URL, or undefined when it goes direct. */
  proxyFor(target: URL | string): string | undefined;
  /** True when any target may go through a proxy. */
  readonly configured: boolean;
  /** Every proxy URL the policy may name (to check them up front). */
  readonly proxies: readonly string[];
}

function envValue(env: Env, name: string): string | undefined {
  const value = env[name.toUpperCase()] ?? env[name.toLowerCase()];
  return value && value.trim() ? value.trim() : undefined;
}

/** `proxy:3128` (as curl accepts it in `HTTPS_PROXY`) → `http://proxy:3128`. */
function withScheme(proxy: string | undefined): string | undefined {
  if (!proxy) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

function list(value: readonly string[] | string | undefined): string[] {
  const items = typeof value === 'string' ? value.split(',') : (value ?? []);
  return items.map((s) => s.trim()).filter(Boolean);
}

/** `host`, `.domain`, `*.domain`, `host:port`, `[::1]:8080`, `10.0.0.0/8`, `*`. */
export function parseNoProxyEntry(entry: string): Rule | undefined {
  let text = entry.trim().toLowerCase();
  if (!text) return undefined;
  if (text === '*') return { kind: 'all' };
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/\/+$/, '');
  let port: number | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracket) {
    text = bracket[1]!;
    port = bracket[2] ? Number(bracket[2]) : undefined;
  } else if (isIP(text) !== 6 && !text.includes('/')) {
    const hostPort = /^(.*):(\d+)$/.exec(text);
    if (hostPort) {
      text = hostPort[1]!;
      port = Number(hostPort[2]);
    }
  } else if (text.includes('/')) {
    const cidrPort = /^(.*\/\d+):(\d+)$/.exec(text);
    if (cidrPort) {
      text = cidrPort[1]!;
      port = Number(cidrPort[2]);
    }
  }
  const cidr = /^(.+)\/(\d{1,3})$/.exec(text);
  if (cidr) {
    const family = isIP(cidr[1]!);
    if (!family) return undefined;
    const list = new BlockList();
    try {
      list.addSubnet(cidr[1]!, Number(cidr[2]), family === 6 ? 'ipv6' : 'ipv4');
    } catch {
      return undefined;
    }
    return { kind: 'cidr', list, port };
  }
  const domain = text.replace(/^\*?\./, '');
  return domain ? { kind: 'host', domain, port } : undefined;
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    host === '0:0:0:0:0:0:0:1' ||
    /^127\.\d+\.\d+\.\d+$/.test(host) ||
    /^::ffff:127\.\d+\.\d+\.\d+$/.test(host)
  );
}

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function matches(rule: Rule, host: string, port: number): boolean {
  if (rule.kind === 'all') return true;
  if (rule.port !== undefined && rule.port !== port) return false;
  if (rule.kind === 'cidr') {
    const family = isIP(host);
    return family !== 0 && rule.list.check(host, family === 6 ? 'ipv6' : 'ipv4');
  }
  // `example.com` and `.example.com` both cover the domain and every host below it (curl's rule).
  return host === rule.domain || host.endsWith(`.${rule.domain}`);
}

export function createProxyPolicy(inputs: ProxyInputs = {}): ProxyPolicy {
  const env = inputs.env ?? process.env;
  const useEnv = inputs.useEnvProxy !== false;
  const explicit = inputs.proxy?.trim() || undefined;
  const httpsProxy = withScheme(explicit ?? (useEnv ? (envValue(env, 'HTTPS_PROXY') ?? envValue(env, 'HTTP_PROXY')) : undefined));
  const httpProxy = withScheme(explicit ?? (useEnv ? envValue(env, 'HTTP_PROXY') : undefined));
  const rules = [...list(inputs.noProxy), ...(useEnv ? list(envValue(env, 'NO_PROXY')) : [])]
    .map(parseNoProxyEntry)
    .filter((r): r is Rule => r !== undefined);

  return {
    configured: Boolean(httpsProxy || httpProxy),
    proxies: [...new Set([httpsProxy, httpProxy].filter((p): p is string => Boolean(p)))],
    proxyFor(target) {
      const url = typeof target === 'string' ? new URL(target) : target;
      const proxy = url.protocol === 'http:' ? httpProxy : httpsProxy;
      if (!proxy) return undefined;
      const host = url.hostname
        .replace(/^\[|\]$/g, '')
        .toLowerCase()
        .replace(/\.$/, '');
      if (isLoopback(host)) return undefined;
      const port = defaultPort(url);
      return rules.some((rule) => matches(rule, host, port)) ? undefined : proxy;
    },
  };
}
