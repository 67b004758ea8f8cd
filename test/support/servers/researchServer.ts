/**
 * A gateway test server on 127.0.0.1 implementing the web tools the embedded backend only offers
 * with an upstream: research (`POST /v1/tools/web/research`, `GET /v1/tools/web/research/{id}`)
 * and web search. Each status poll advances a task one step, so tests see progress without
 * depending on time. The query picks the scenario:
 *
 * - default: in_progress 25 % → 50 % → 75 % (with messages), then completed with sources
 * - contains "fail": one in_progress step, then failed with an error
 * - contains "cancel": one in_progress step, then cancelled by the service
 * - contains "forever": in_progress on every poll (for client-side cancellation)
 * - contains "queued": an unknown status ("queued") first, then completed
 *
 * Also serves small HTML pages under `/pages/{name}` for crawl tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ResearchTaskState {
  id: string;
  query: string;
  polls: number;
  steps: Array<Record<string, unknown>>;
}

export interface ResearchServer {
  url: string;
  apiKey: string;
  tasks: Map<string, ResearchTaskState>;
  /** Every request as "METHOD /path". */
  requests: string[];
  /**
   * Holds the next status poll unanswered: `arrived` resolves when it comes in, `abandoned` when the
   * client closes it before an answer (a cancelled poll).
   */
  holdNextPoll(): { arrived: Promise<void>; abandoned: Promise<void> };
  close(): Promise<void>;
}

interface HeldPoll {
  arrive(): void;
  abandon(): void;
}

export const RESEARCH_SOURCES = [
  { url: 'https://example.com/solar', title: 'Solar power [overview]' },
  { url: 'javascript:alert(1)', title: 'Not a web link' },
];

function stepsFor(id: string, query: string): Array<Record<string, unknown>> {
  const running = (progress: number, message: string) => ({ id, object: 'research', status: 'in_progress', progress, message });
  if (/forever/i.test(query)) return [running(0.1, 'Searching the web')];
  if (/fail/i.test(query)) {
    return [
      running(0.3, 'Searching the web'),
      { id, status: 'failed', error: { code: 'upstream_error', message: 'The search provider is down.' } },
    ];
  }
  if (/cancel/i.test(query)) {
    return [running(0.3, 'Searching the web'), { id, status: 'cancelled', message: 'Stopped by an administrator' }];
  }
  const done = {
    id,
    status: 'completed',
    progress: 1,
    result: { content: `## Findings on ${query}\n\nSolar output grew in 2025 [1].`, sources: RESEARCH_SOURCES },
  };
  if (/queued/i.test(query)) return [{ id, status: 'queued' }, done];
  return [running(0.25, 'Searching the web'), running(0.5, 'Reading 4 sources'), running(0.75, 'Writing the answer'), done];
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${Math.random().toString(36).slice(2)}` });
  res.end(JSON.stringify(body));
}

function error(res: ServerResponse, status: number, type: string, message: string): void {
  send(res, status, { error: { message, type, param: null, code: null } });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    return {};
  }
}

export async function startResearchServer(options: { apiKey?: string } = {}): Promise<ResearchServer> {
  const apiKey = options.apiKey ?? 'research-key-7f2c';
  const tasks = new Map<string, ResearchTaskState>();
  const requests: string[] = [];
  let next = 1;
  let hold: HeldPoll | undefined;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      requests.push(`${req.method} ${path}`);
      const page = /^\/pages\/([\w-]+)$/.exec(path);
      if (req.method === 'GET' && page) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<html><head><title>Page ${page[1]}</title></head><body><h1>Page ${page[1]}</h1><p>The ${page[1]} page explains the release process in detail.</p></body></html>`,
        );
        return;
      }
      if (req.headers['api-key'] !== apiKey) {
        error(res, 401, 'authentication_error', 'Invalid API key.');
        return;
      }
      if (req.method === 'POST' && path === '/v1/tools/web/research') {
        const body = await readJson(req);
        if (typeof body.query !== 'string' || !body.query.trim()) {
          error(res, 400, 'invalid_request_error', 'query is required.');
          return;
        }
        const id = `research_${next++}`;
        tasks.set(id, { id, query: body.query, polls: 0, steps: stepsFor(id, body.query) });
        send(res, 200, { id, object: 'research', status: 'in_progress', created_at: Math.floor(Date.now() / 1000) });
        return;
      }
      const status = /^\/v1\/tools\/web\/research\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && status) {
        const task = tasks.get(decodeURIComponent(status[1]!));
        if (!task) {
          error(res, 404, 'not_found_error', `No research task ${status[1]}.`);
          return;
        }
        const held = hold;
        if (held) {
          hold = undefined;
          res.once('close', () => res.writableEnded || held.abandon());
          held.arrive();
          return;
        }
        const step = task.steps[Math.min(task.polls, task.steps.length - 1)]!;
        task.polls += 1;
        send(res, 200, step);
        return;
      }
      if (req.method === 'POST' && path === '/v1/tools/web/search') {
        const body = await readJson(req);
        const query = String(body.query ?? '');
        const max = typeof body.max_results === 'number' ? body.max_results : 3;
        const results = [
          { title: `About ${query}`, url: 'https://example.com/about', content: `Everything about ${query}.`, score: 0.9 },
          { title: 'Click *here* [now]', url: 'javascript:alert(1)', content: 'A result whose link is not a web address.', score: 0.5 },
          { title: 'Third', url: 'https://example.org/third', content: 'x '.repeat(400), score: 0.2 },
        ].slice(0, max);
        send(res, 200, { results });
        return;
      }
      error(res, 404, 'not_found_error', `No route ${req.method} ${path}.`);
    })().catch((e: unknown) => error(res, 500, 'server_error', String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    tasks,
    requests,
    holdNextPoll() {
      let arrive!: () => void;
      let abandon!: () => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const abandoned = new Promise<void>((resolve) => (abandon = resolve));
      hold = { arrive, abandon };
      return { arrived, abandoned };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
