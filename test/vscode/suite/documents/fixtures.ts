import { GroundingMemory } from '../../../../src/services/defaultGrounding';
import { ModelServerMemory } from '../../../../src/services/modelServers';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { createLogger } from '../../../../src/services/outputLog';
import type { Services } from '../../../../src/services';
import { ConfigService } from '../../../../src/services/config';
import type { ConnectionService, ConnectionState } from '../../../../src/services/connection';
import { DocumentsEvents } from '../../../../src/services/documentsEvents';
import { ErrorReporter } from '../../../../src/services/errors';
import { RateLimitMonitor } from '../../../../src/services/rateLimits';
import { RecentStores } from '../../../../src/services/recentStores';

export const EXTENSION_ID = 'docchat.docchat';
const TOKEN = 'exthost-token-93ac';

export interface RunningBackend {
  url: string;
  close(): Promise<void>;
}

export interface TestBackend {
  url: string;
  client: DocumentsClient;
  stop(): Promise<void>;
}

declare const DOCCHAT_REPOSITORY_ROOT: string;

/**
 * The embedded backend as a library (`startBackend`), from the build of the repository the suite
 * was built from: dist/backend.js is not packaged (the extension runs dist/backend-cli.js as its own
 * process), so it is not in the installed extension.
 */
export function backendLibrary<Options>(): { startBackend(o: Options): Promise<RunningBackend> } {
  const file = path.join(DOCCHAT_REPOSITORY_ROOT, 'dist', 'backend.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return require(file) as { startBackend(o: Options): Promise<RunningBackend> };
}

/** The embedded backend in this extension host, rate limits off. */
export async function startBackend(): Promise<TestBackend> {
  const bundle = backendLibrary<{
    dataDir: string;
    token: string;
    apiKey: string;
    rateLimits?: boolean;
    port?: number;
    host?: string;
  }>();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-exthost-backend-'));
  const server = await bundle.startBackend({ host: '127.0.0.1', port: 0, dataDir, token: TOKEN, apiKey: TOKEN, rateLimits: false });
  const client = new DocumentsClient({ baseUrl: server.url, token: TOKEN, rateLimits: false });
  return {
    url: server.url,
    client,
    async stop() {
      await client.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

class MemoryMemento implements vscode.Memento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, defaultValue?: T): T | undefined {
    return (this.values.has(key) ? this.values.get(key) : defaultValue) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
  }
}

export interface TestServices extends Services {
  dispose(): void;
  memento: vscode.Memento;
}

/**
 * The services a feature receives, wired to a test backend: the real config, events, rate-limit
 * monitor and error reporter; a connection that always points at the given client.
 */
export function servicesFor(client: DocumentsClient, channel: vscode.LogOutputChannel): TestServices {
  const disposables: vscode.Disposable[] = [];
  const log = createLogger(channel, 'test');
  const config = new ConfigService();
  const rateLimits = new RateLimitMonitor();
  const documentsEvents = new DocumentsEvents();
  const onDidChange = new vscode.EventEmitter<ConnectionState>();
  disposables.push(config, rateLimits, documentsEvents, onDidChange);
  const state: ConnectionState = { kind: 'local', url: 'http://127.0.0.1' };
  const connection = {
    state,
    documents: client,
    gateway: undefined,
    gatewayUnavailable: 'noUrl',
    onDidChange: onDidChange.event,
    whenReady: async () => undefined,
    use: async () => undefined,
  } as unknown as ConnectionService;
  const memento = new MemoryMemento();
  return {
    log,
    config,
    secrets: undefined as never,
    connection,
    rateLimits,
    // This connection has no local backend to check.
    errors: new ErrorReporter(log, rateLimits, () => undefined),
    localBackend: undefined as never,
    recentStores: new RecentStores(memento),
    documentsEvents,
    grounding: new GroundingMemory(memento),
    modelServer: new ModelServerMemory(memento),
    memento,
    dispose: () => disposables.forEach((d) => d.dispose()),
  };
}

/** Waits (by turns of the event loop) for a condition the code under test makes true asynchronously. */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, tries = 400): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) {
      return value as T;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Timed out waiting for ${what}`);
}
