import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadWithFakeVscode } from '../../support/fakeVscode';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DocumentsClient } from '../../../src/api/documents/client';
import { LeaseClient } from '../../../src/api/lifetime/client';
import { isProcessAlive, readDiscovery } from '../../../src/common/discoveryFile';
import type { Logger } from '../../../src/common/log';
import { LocalBackend, type LocalBackendOptions, type LocalEndpoint, type LocalUpstream } from '../../../src/services/localBackend';
import { startFakeUpstream, type FakeUpstream } from '../backend/fakeUpstream';
import { backendCliCommand } from '../../support/harness/backend';
import { pollUntil } from '../../support/harness/poll';

const ROOT = path.resolve(__dirname, '../../..');
/** The backend's command line from source: the Node flags, then the script. */
const CLI_FROM_SOURCE = backendCliCommand([], { fromSource: true }).args;

/** A logger that keeps every line, to check that no secret reaches it. */
function recordingLogger(lines: string[]): Logger {
  const note = (m: string) => {
    lines.push(m);
    if (process.env.DOCCHAT_TEST_LOG) process.stderr.write(`    [local] ${m}\n`);
  };
  const logger = {
    trace: note,
    debug: note,
    info: note,
    warn: note,
    error: note,
    child: () => logger,
    sink: () => (_level: string, m: string) => note(m),
  } as unknown as Logger;
  return logger;
}

/** What the window shows: Local mode's notices, with `vscode` replaced by a recorder. */
const shownErrors: { message: string; actions: string[] }[] = [];
const fakeVscode = {
  l10n: { t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)])) },
  window: {
    showErrorMessage: (message: string, ...actions: string[]) => {
      shownErrors.push({ message, actions });
      return Promise.resolve(undefined);
    },
  },
  commands: { executeCommand: () => Promise.resolve(undefined) },
};
const { announceLocalBackendChange } = loadWithFakeVscode<typeof import('../../../src/services/localBackendNotices')>(
  fakeVscode,
  require.resolve('../../../src/services/localBackendNotices'),
);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** Waits for a condition that changes outside this process (a process exiting). */
async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  await pollUntil(condition, (holds) => holds, { timeoutMs, intervalMs: 20, what });
}

describe('Local mode: one backend process per profile', function () {
  this.timeout(180_000);
  let root: string;
  const windows: LocalBackend[] = [];
  const logLines: string[] = [];
  const pids = new Set<number>();

  /** A window of the profile in `root`: the backend runs from the sources through tsx. */
  function openWindow(options: Partial<LocalBackendOptions> = {}): LocalBackend {
    const window = new LocalBackend(
      { extensionPath: ROOT, globalStorageUri: { fsPath: path.join(root, 'storage') } as never },
      recordingLogger(logLines),
      {
        version: '0.1.0',
        execArgv: CLI_FROM_SOURCE.slice(0, -1),
        script: CLI_FROM_SOURCE.at(-1),
        leaseClient: (client) => new LeaseClient(client),
        ...options,
      },
    );
    windows.push(window);
    return window;
  }
  async function started(window: LocalBackend, upstream?: LocalUpstream, ocrLanguages?: string[]): Promise<LocalEndpoint> {
    const endpoint = await window.start(upstream, undefined, ocrLanguages);
    if (window.pid) pids.add(window.pid);
    return endpoint;
  }
  const discoveryFile = () => path.join(root, 'storage', 'backend.json');

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'docchat-local-'));
    logLines.length = 0;
    shownErrors.length = 0;
  });

  afterEach(async () => {
    for (const window of windows.splice(0)) {
      await window.stop();
      window.dispose();
    }
    const holder = await readDiscovery(discoveryFile());
    if (holder) pids.add(holder.pid);
    for (const pid of pids) {
      if (isProcessAlive(pid)) process.kill(pid, 'SIGTERM');
    }
    for (const pid of pids) await until(`process ${pid} exited`, () => !isProcessAlive(pid));
    pids.clear();
    rmSync(root, { recursive: true, force: true });
  });

  it("serves the one user of the machine without the documents service's per-minute limits", async () => {
    const endpoint = await started(openWindow());
    const client = new DocumentsClient({ baseUrl: endpoint.url, token: endpoint.token, rateLimits: false, transport: { maxRetries: 0 } });
    try {
      // The service allows 30 stores a minute per user; the user's own backend refuses none.
      for (let i = 0; i < 31; i++) await client.createVectorStore({ name: `store-${i}` });
      assert.equal((await client.listVectorStores({ limit: 100 })).data.length, 31);
    } finally {
      await client.close();
    }
  });

  it('two windows starting at once end with one server and one discovery file', async () => {
    const [a, b] = [openWindow(), openWindow()];
    const [ea, eb] = await Promise.all([started(a), started(b)]);
    assert.equal(ea.url, eb.url);
    assert.equal(ea.token, eb.token, 'both windows use the token of the discovery file');
    assert.equal(a.pid, b.pid);
    const info = await readDiscovery(discoveryFile());
    assert.equal(info?.pid, a.pid);
    const files = await readdir(path.join(root, 'storage'));
    assert.deepEqual(
      files.filter((f) => f.startsWith('backend.json')),
      ['backend.json'],
      'no temporary discovery file is left',
    );
    const client = new DocumentsClient({ baseUrl: ea.url, token: eb.token, rateLimits: false, transport: { maxRetries: 0 } });
    await client.createVectorStore({ name: 'shared' });
    await client.close();
  });

  it('the discovery file is readable by its owner only and its token never reaches a log', async () => {
    const window = openWindow();
    const endpoint = await started(window);
    const mode = (await stat(discoveryFile())).mode & 0o777;
    assert.equal(mode, 0o600);
    const backendLog = await readFile(path.join(root, 'storage', 'backend.log'), 'utf8');
    assert.match(backendLog, /listening on/, 'the backend log is written');
    assert.ok(!backendLog.includes(endpoint.token), 'the token is not in the backend log');
    assert.ok(logLines.length > 0 && logLines.every((line) => !line.includes(endpoint.token)), 'the token is not in the window log');
  });

  it('a discovery file naming a dead process is replaced, keeping token and port', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = await new Promise<number>((resolve) => dead.once('exit', () => resolve(dead.pid!)));
    await mkdir(path.join(root, 'storage'), { recursive: true });
    const port = await freePort();
    await writeFile(
      discoveryFile(),
      JSON.stringify({
        url: `http://127.0.0.1:${port}`,
        pid: deadPid,
        version: '0.1.0',
        token: 'kept-token-0123456789',
        upstream: null,
        startedAt: '',
      }),
      { mode: 0o600 },
    );
    const endpoint = await started(openWindow());
    assert.equal(endpoint.token, 'kept-token-0123456789');
    assert.equal(endpoint.url, `http://127.0.0.1:${port}`);
    const info = await readDiscovery(discoveryFile());
    assert.notEqual(info?.pid, deadPid);
    assert.ok(info && isProcessAlive(info.pid));
  });

  it("a backend that does not accept the file's token, or runs an older version, is replaced", async () => {
    const old = openWindow({ version: '0.0.9' });
    await started(old);
    const oldPid = old.pid!;
    const newer = openWindow({ version: '0.1.0' });
    const endpoint = await started(newer);
    assert.notEqual(newer.pid, oldPid);
    await until('the older backend exited', () => !isProcessAlive(oldPid));
    assert.equal((await readDiscovery(discoveryFile()))?.version, '0.1.0');

    const info = (await readDiscovery(discoveryFile()))!;
    await writeFile(discoveryFile(), JSON.stringify({ ...info, token: 'not-the-token' }), { mode: 0o600 });
    const third = openWindow();
    const fresh = await started(third);
    assert.notEqual(third.pid, info.pid);
    assert.notEqual(fresh.token, 'not-the-token');
    assert.notEqual(fresh.token, endpoint.token);
    await until('the backend with the other token exited', () => !isProcessAlive(info.pid));
  });

  it('a killed backend is started again without the window doing anything', async () => {
    const window = openWindow();
    const endpoint = await started(window);
    const pid = window.pid!;
    window.onDidChange((change) => announceLocalBackendChange(change, recordingLogger(logLines)));
    const restarted = new Promise<LocalEndpoint | Error>((resolve) => window.onDidChange(resolve));
    process.kill(pid, 'SIGKILL');
    const after = await restarted;
    assert.equal(
      logLines.filter((line) => line === `The local backend stopped and was started again; DocChat goes on at ${endpoint.url}.`).length,
      1,
      'the restart is said once, in a sentence',
    );
    assert.deepEqual(shownErrors, [], 'a restart that worked shows no error');
    assert.ok(!(after instanceof Error), String(after));
    assert.equal(after.url, endpoint.url, 'the same port, so open clients keep working');
    assert.notEqual(window.pid, pid);
    pids.add(window.pid!);
    const client = new DocumentsClient({ baseUrl: endpoint.url, token: endpoint.token, rateLimits: false, transport: { maxRetries: 0 } });
    assert.ok(Array.isArray((await client.listVectorStores()).data));
    await client.close();
  });

  it('a window that did not start the backend restarts it when a request cannot reach it', async () => {
    const first = openWindow();
    await started(first);
    const second = openWindow();
    const endpoint = await started(second);
    const pid = second.pid!;
    // The window that started (and watched) the backend is closed; then the backend is killed.
    await first.stop();
    first.dispose();
    process.kill(pid, 'SIGKILL');
    await pollUntil(
      () => isProcessAlive(pid),
      (alive) => !alive,
      { timeoutMs: 10_000, intervalMs: 20, what: `backend ${pid} to end` },
    );
    // What a request that could not connect asks for (ClientOptions.onUnreachable).
    assert.equal(await second.probe(), true, 'the backend is back');
    assert.notEqual(second.pid, pid);
    pids.add(second.pid!);
    const client = new DocumentsClient({ baseUrl: endpoint.url, token: endpoint.token, rateLimits: false, transport: { maxRetries: 0 } });
    assert.ok(Array.isArray((await client.listVectorStores()).data), 'at the same address, with the same token');
    await client.close();
    assert.ok(
      logLines.some((l) => l.includes('The local backend is back at the same address')),
      logLines.join('\n'),
    );
  });

  it('a backend ended by a plain kill (SIGTERM, no discovery file left) is back at the same address when a request cannot reach it', async () => {
    const window = openWindow();
    const endpoint = await started(window);
    const pid = window.pid!;
    // SIGTERM is a clean stop: the backend removes its discovery file and exits with code 0.
    process.kill(pid, 'SIGTERM');
    await until(`backend ${pid} to end`, () => !isProcessAlive(pid));
    assert.equal(await readDiscovery(discoveryFile()), undefined, 'the stopped backend removed its discovery file');
    // What a request that could not connect asks for (ClientOptions.onUnreachable).
    assert.equal(await window.probe(), true, 'the backend is back');
    assert.notEqual(window.pid, pid);
    pids.add(window.pid!);
    // The client made before the kill: the request it sends again reaches the successor.
    const client = new DocumentsClient({ baseUrl: endpoint.url, token: endpoint.token, rateLimits: false, transport: { maxRetries: 0 } });
    assert.ok(Array.isArray((await client.listVectorStores()).data), 'at the same address, with the same token');
    await client.close();
  });

  it('a crash loop ends in one error after five crashes, without more processes', async () => {
    const window = openWindow();
    await started(window);
    const changes: (LocalEndpoint | Error)[] = [];
    window.onDidChange((change) => changes.push(change));
    window.onDidChange((change) => announceLocalBackendChange(change, recordingLogger(logLines)));
    for (let crash = 1; crash <= 5; crash++) {
      const pid = window.pid!;
      pids.add(pid);
      const next = new Promise<LocalEndpoint | Error>((resolve) => {
        const listener = window.onDidChange((change) => {
          listener.dispose();
          resolve(change);
        });
      });
      process.kill(pid, 'SIGKILL');
      const change = await next;
      if (crash < 5) {
        assert.ok(!(change instanceof Error), `crash ${crash}: restarted (${String(change)})`);
        pids.add(window.pid!);
      } else {
        assert.ok(change instanceof Error);
        assert.match(change.message, /stopped 5 times within 3 minutes/);
      }
    }
    assert.equal(changes.filter((c) => c instanceof Error).length, 1, 'one error');
    assert.equal(shownErrors.length, 1, 'the user sees one error');
    assert.match(shownErrors[0]!.message, /^DocChat: The local DocChat backend stopped 5 times within 3 minutes/);
    assert.deepEqual(shownErrors[0]!.actions, ['Show Output']);
    assert.equal(logLines.filter((line) => /stopped and was started again/.test(line)).length, 4, 'each restart said once');
    assert.ok(
      [...pids].every((pid) => !isProcessAlive(pid)),
      'no backend runs after the crash loop',
    );
  });

  it('exits by itself once the last window let go and the idle time passed', async () => {
    const [a, b] = [openWindow({ idleExitMs: 300, heartbeatMs: 200 }), openWindow({ idleExitMs: 300, heartbeatMs: 200 })];
    await started(a);
    await started(b);
    const pid = a.pid!;
    await a.stop();
    assert.ok(isProcessAlive(pid), 'the second window still holds a lease');
    await b.stop();
    await until('the idle backend exited', () => !isProcessAlive(pid));
    assert.equal(await readDiscovery(discoveryFile()), undefined, 'the backend removed its discovery file');
  });

  it('reads scans in the OCR languages it was started with, and is replaced when they change', async () => {
    const window = openWindow();
    const scan = await readFile(path.join(ROOT, 'test/fixtures/docling/right_to_left_01_top.png'));
    const readScan = async (endpoint: LocalEndpoint) => {
      const client = new DocumentsClient({ baseUrl: endpoint.url, token: endpoint.token, rateLimits: false, transport: { maxRetries: 0 } });
      try {
        const store = await client.createVectorStore({ name: 'scans' });
        const file = await client.uploadFile({ filename: 'arabic-scan.png', data: scan });
        await client.attachFile(store.id, { file_id: file.id });
        assert.equal((await client.waitUntilProcessed(store.id, file.id)).status, 'completed');
        return await client.retrieveVectorStoreFileContent(store.id, file.id);
      } finally {
        await client.close();
      }
    };
    // English only: the Arabic page is not read as Arabic.
    const englishOnly = await started(window, undefined, ['eng']);
    const englishPid = window.pid;
    assert.doesNotMatch(await readScan(englishOnly), /الإنتاجية/u);
    // The default languages: a new backend, which reads the Arabic words.
    const every = await started(window, undefined, undefined);
    assert.notEqual(window.pid, englishPid, 'other OCR languages: a new backend');
    assert.match(await readScan(every), /تحسين الإنتاجية/u);
  });

  describe('with the gateway as its embeddings upstream', () => {
    let gateway: FakeUpstream;
    beforeEach(async () => (gateway = await startFakeUpstream()));
    afterEach(async () => gateway.close());
    const upstream = (): LocalUpstream => ({
      url: gateway.url,
      key: 'gateway-key',
      embeddingModel: 'text-embed-3-large',
      embedPath: '/embed',
    });

    it('searches hybrid with the gateway embeddings, and restarts only when the upstream changes', async () => {
      const window = openWindow();
      const first = await started(window, upstream());
      const firstPid = window.pid;
      assert.equal((await started(window, upstream())).url, first.url, 'same upstream: the same backend');
      assert.equal(window.pid, firstPid);

      const client = new DocumentsClient({ baseUrl: first.url, token: first.token, rateLimits: false, transport: { maxRetries: 0 } });
      const store = await client.createVectorStore({ name: 'pets' });
      for (const [name, text] of [
        ['felines.md', 'Felines sleep sixteen hours a day.'],
        ['dogs.md', 'Dogs need a walk twice a day.'],
      ]) {
        const file = await client.uploadFile({ filename: name, data: new TextEncoder().encode(text) });
        await client.attachFile(store.id, { file_id: file.id });
        assert.equal((await client.waitUntilProcessed(store.id, file.id)).status, 'completed');
      }
      const result = await client.search(store.id, { query: 'kitten' });
      assert.equal((result as { ranking?: string }).ranking, 'hybrid');
      assert.match(result.data[0].content, /Felines/);
      const embeds = gateway.requests.filter((r) => r.path === '/v1/embed');
      assert.ok(embeds.length > 0);
      assert.ok(embeds.every((r) => (r.body as { model: string }).model === 'text-embed-3-large'));
      await client.close();

      const withoutGateway = await started(window, undefined);
      assert.notEqual(window.pid, firstPid, 'a new backend without the upstream');
      const plain = new DocumentsClient({
        baseUrl: withoutGateway.url,
        token: withoutGateway.token,
        rateLimits: false,
        transport: { maxRetries: 0 },
      });
      const again = await plain.search(store.id, { query: 'felines' });
      assert.notEqual((again as { ranking?: string }).ranking, 'hybrid', 'restarted without the upstream');
      assert.match(again.data[0].content, /Felines/, 'the data folder survived the restart');
      await plain.close();
    });
  });
});
