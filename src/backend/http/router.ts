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
  /** Literal segments, or null where a parameter goes. */
  parts: (string | null)[];
  keys: string[];
}

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

/**
 * `/v1/vector_stores/:id/files` style patterns, matched against decoded path segments (see
 * target.ts): a parameter is exactly one segment, whatever characters it decodes to.
 */
export class Router {
  private readonly routes: CompiledRoute[] = [];

  add(...routes: Route[]): void {
    for (const route of routes) {
      const keys: string[] = [];
      const parts = route.path
        .slice(1)
        .split('/')
        .map((part) => {
          if (!part.startsWith(':')) return part;
          keys.push(part.slice(1));
          return null;
        });
      this.routes.push({ ...route, parts, keys });
    }
  }

  match(method: string, segments: readonly string[]): Match {
    const allowed: string[] = [];
    for (const route of this.routes) {
      if (route.parts.length !== segments.length) continue;
      const values: string[] = [];
      const fits = route.parts.every((part, i) => {
        if (part === null) {
          values.push(segments[i]!);
          return segments[i] !== '';
        }
        return part === segments[i];
      });
      if (!fits) continue;
      if (route.method !== method) {
        if (!allowed.includes(route.method)) allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.keys.forEach((key, i) => {
        params[key] = values[i]!;
      });
      return { kind: 'found', route, params };
    }
    return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }
}
