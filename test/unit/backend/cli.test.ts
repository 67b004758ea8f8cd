import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { backendCliCommand } from '../../support/harness/backend';
import { call, tempDir } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');
const run = promisify(execFile);
/** The command line from source, as `backendCliCommand` builds it for every test. */
const fromSource = (args: string[]) => backendCliCommand(args, { fromSource: true });
const cli = (args: string[]) => {
  const { command, args: full } = fromSource(args);
  return run(command, full, { cwd: ROOT });
};
const spawnCli = (args: string[]) => {
  const { command, args: full } = fromSource(args);
  return spawn(command, full, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
};

describe('backend: docchat-backend command', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('docchat-cli-');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('prints help', async () => {
    const { stdout } = await cli(['--help']);
    assert.match(stdout, /Usage: docchat-backend/);
    for (const flag of [
      '--port',
      '--host',
      '--data-dir',
      '--token',
      '--api-key',
      '--no-rate-limits',
      '--upstream',
      '--upstream-key',
      '--skills',
      '--seed-demo',
      '--seed-only',
      '--ocr-languages',
    ]) {
      assert.ok(stdout.includes(flag), flag);
    }
  });

  it('rejects bad arguments with exit code 2', async () => {
    await assert.rejects(cli(['--bogus']), (e: { code?: number; stderr?: string }) => e.code === 2 && /bogus/.test(e.stderr ?? ''));
    await assert.rejects(cli(['--port', '70000']), (e: { code?: number }) => e.code === 2);
    await assert.rejects(cli(['--seed-only']), (e: { code?: number }) => e.code === 2);
    await assert.rejects(
      cli(['--ocr-languages', 'eng,urd']),
      (e: { code?: number; stderr?: string }) =>
        e.code === 2 &&
        (e.stderr ?? '').includes(
          '--ocr-languages: OCR has no language "urd": the OCR languages DocChat ships are eng (English), ara (Arabic), fas (Persian), heb (Hebrew).',
        ),
    );
  });

  it('prints {url, token, apiKey} when listening, generates a token, and stops on SIGINT', async () => {
    const child = spawnCli(['--data-dir', dir, '--port', '0']);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const info = JSON.parse(line);
    assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(info.token.length >= 24);
    assert.equal(info.apiKey, info.token);
    assert.equal((await call(info.url, 'GET', '/v1/vector_stores', { headers: { authorization: `Bearer ${info.token}` } })).status, 200);
    assert.equal((await call(info.url, 'GET', '/v1/completions/models', { headers: { 'api-key': info.apiKey } })).status, 200);
    assert.ok(!stderr.includes(info.token), 'the token never reaches the log');
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGINT');
    });
    assert.equal(code, 0);
  });

  it('--seed-demo --seed-only seeds the demo store once and exits', async () => {
    const docs = path.join(dir, 'docs');
    await mkdir(path.join(docs, 'node_modules'), { recursive: true });
    await writeFile(path.join(docs, 'intro.md'), '# Intro\n\nThe demo store explains the aurora borealis.');
    await writeFile(path.join(docs, 'notes.txt'), 'Plain notes.');
    await writeFile(path.join(docs, 'clip.mp4'), Buffer.from([0, 0, 0, 0x18]));
    await writeFile(path.join(docs, 'node_modules', 'skip.md'), 'skipped');
    const data = path.join(dir, 'data');
    const first = await cli(['--data-dir', data, '--seed-demo', docs, '--seed-only']);
    const summary = JSON.parse(first.stdout.trim()).seeded;
    assert.equal(summary.added, 2, first.stderr);
    assert.equal(summary.failed, 0);
    const second = await cli(['--data-dir', data, '--seed-demo', docs, '--seed-only']);
    assert.equal(JSON.parse(second.stdout.trim()).seeded.skipped, 2);

    const child = spawnCli(['--data-dir', data, '--token', 't']);
    child.stderr.resume();
    try {
      const { url } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve)));
      const stores = await call(url, 'GET', '/v1/vector_stores', { headers: { authorization: 'Bearer t' } });
      assert.deepEqual(
        stores.json.data.map((s: { name: string }) => s.name),
        ['demo'],
      );
      assert.equal(stores.json.data[0].file_counts.completed, 2);
      const search = await call(url, 'POST', `/v1/vector_stores/${summary.storeId}/search`, {
        body: { query: 'aurora' },
        headers: { authorization: 'Bearer t' },
      });
      assert.match(search.json.data[0].content, /aurora borealis/);
    } finally {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    }
  });
});
