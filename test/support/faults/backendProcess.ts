/**
 * The backend CLI as a child process (so it can be killed with SIGKILL), and a seeded PRNG for
 * "random" moments that a failing run can replay.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'src/backend/cli.ts');

export interface BackendChild {
  url: string;
  process: ChildProcess;
  stderr(): string;
}

export async function spawnBackendCli(dataDir: string, token: string, apiKey: string, extra: string[] = []): Promise<BackendChild> {
  const child = spawn(
    process.execPath,
    ['--require', 'tsx/cjs', CLI, '--data-dir', dataDir, '--token', token, '--api-key', apiKey, ...extra],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`backend exited (${code}) before listening:\n${stderr}`)));
  });
  return { url: JSON.parse(line).url, process: child, stderr: () => stderr };
}

export function killHard(child: BackendChild): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.process.once('exit', () => resolve());
    child.process.kill('SIGKILL');
  });
}

/** mulberry32: small, fast, good enough to pick moments; the same seed gives the same run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: DOCCHAT_TEST_SEED to replay one, otherwise a fresh one. */
export function testSeed(): number {
  const given = Number(process.env.DOCCHAT_TEST_SEED);
  return Number.isInteger(given) ? given : Math.floor(Math.random() * 1_000_000);
}
