/** What the folder-sync tests share: an embedded backend and folders, a client that counts the requests a sync sends, and a plan. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FakeClock } from '../../api/helpers';
import { startTestBackend, TOKEN, type TestBackend } from '../backend';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { forward } from '../../../support/servers/forward';
import { planFolderSync, type PlanStepOptions } from '../../../../src/features/sync/planStep';
import type { SyncClient } from '../../../../src/features/sync/runner';

export type Counted = SyncClient & {
  /** Requests sent, by operation. */
  calls: Record<string, number>;
  /** The clock's time each request was answered at, by operation. */
  at: Record<string, number[]>;
};

/** The real client, with a count (and the clock time of the answer) of each request the sync sends. */
export function counting(client: SyncClient, clock?: FakeClock): Counted {
  const calls: Record<string, number> = {};
  const at: Record<string, number[]> = {};
  const wrapped = {} as Record<string, unknown>;
  for (const name of [
    'uploadFile',
    'attachFile',
    'deleteVectorStoreFile',
    'deleteFile',
    'updateVectorStoreFileMetadata',
    'listVectorStoreFiles',
    'listFiles',
  ] as const) {
    const method = (client[name] as (...args: unknown[]) => Promise<unknown>).bind(client);
    wrapped[name] = async (...args: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1;
      const result = await method(...args);
      (at[name] ??= []).push(clock?.now() ?? 0);
      return result;
    };
  }
  return Object.assign(wrapped, { calls, at }) as unknown as Counted;
}

/** The plan step's options for all of `root`, without records or an interrupted sync, unless `extra` says otherwise. */
export function planOptions(client: SyncClient, storeId: string, root: string, extra: Partial<PlanStepOptions> = {}): PlanStepOptions {
  return {
    client,
    storeId,
    root,
    folder: root,
    relativeFolder: '',
    exclude: [],
    records: new Map(),
    journal: { readFor: () => Promise.resolve(undefined) },
    ...extra,
  };
}

/** Plans the sync of all of `root` as the controller does, for a folder without records or journal. */
export async function planFor(client: SyncClient, storeId: string, root: string) {
  const { plan, attachedIds } = await planFolderSync(planOptions(client, storeId, root));
  return { plan, attachedIds };
}

/** A folder-sync suite's embedded backend, and the folders each of its tests gets afresh. */
export interface SyncSuite {
  backend: TestBackend;
  /** The folder to sync (a workspace folder), new for each test. */
  root: string;
  /** A folder for the test's journals, new for each test. */
  journalDir: string;
  /** Writes files into `root`, by `/`-separated relative path. */
  tree(files: Record<string, string | Buffer>): Promise<void>;
}

/** Starts the embedded backend for the suite and makes (then removes) each test's folders. */
export function useSyncSuite(): SyncSuite {
  const suite: SyncSuite = {
    backend: undefined as unknown as TestBackend,
    root: '',
    journalDir: '',
    async tree(files) {
      for (const [relative, content] of Object.entries(files)) {
        const file = path.join(suite.root, ...relative.split('/'));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content);
      }
    },
  };
  before(async () => {
    suite.backend = await startTestBackend();
  });
  after(() => suite.backend.stop());
  beforeEach(async () => {
    suite.root = await mkdtemp(path.join(os.tmpdir(), 'docchat-sync-'));
    suite.journalDir = await mkdtemp(path.join(os.tmpdir(), 'docchat-journal-'));
  });
  afterEach(async () => {
    await rm(suite.root, { recursive: true, force: true });
    await rm(suite.journalDir, { recursive: true, force: true });
  });
  return suite;
}

/** A documents client whose attach requests are recorded on their way to the backend. */
export interface RecordingClient {
  client: DocumentsClient;
  /** The attach requests' bodies as they reached the service, by file id. */
  attaches: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts a proxy in front of the backend at `backendUrl` that records every attach request. */
export async function recordingAttaches(backendUrl: string): Promise<RecordingClient> {
  const attaches = new Map<string, Record<string, unknown>>();
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && /^\/v1\/vector_stores\/[^/]+\/files$/.test(req.url ?? '')) {
        const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        attaches.set(String(json.file_id), json);
      }
      forward(req, res, backendUrl, body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  const client = new DocumentsClient({
    baseUrl: `http://127.0.0.1:${port}`,
    token: TOKEN,
    rateLimits: false,
    transport: { maxRetries: 0 },
  });
  return {
    client,
    attaches,
    close: async () => {
      await client.close();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
