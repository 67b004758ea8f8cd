import type { IncomingMessage, ServerResponse } from 'node:http';

export type Service = 'documents' | 'gateway' | 'public';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  requestId: string;
  /** Origin the client used (scheme://host:port), for URLs in responses. */
  origin: string;
}

export interface Route {
  method: string;
  path: string;
  service: Service;
  /** Rate-limited operation name; undefined means not limited. */
  operation?: string;
  handler: (ctx: RequestContext) => Promise<void> | void;
}

interface CompiledRoute extends Route {
  regex: RegExp;
  keys: string[];
}

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

/** `/v1/vector_stores/:id/files` style patterns; a parameter never spans a slash. */
export class Router {
  private readonly routes: CompiledRoute[] = [];

  add(...routes: Route[]): void {
    for (const route of routes) {
      const keys: string[] = [];
      const source = route.path
        .split('/')
        .map((part) => {
          if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          keys.push(part.slice(1));
          return '([^/]+)';
        })
        .join('/');
      this.routes.push({ ...route, regex: new RegExp(`^${source}/?$`), keys });
    }
  }

  match(method: string, pathname: string): Match {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const m = route.regex.exec(pathname);
      if (!m) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.keys.forEach((key, i) => {
        params[key] = decodeURIComponent(m[i + 1]!);
      });
      return { kind: 'found', route, params };
    }
    return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }
}
