import { existsSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive, readDiscovery } from '../../../src/common/discoveryFile';
import { runBackendCli } from './backend';
import { manifest } from './manifest';
import { repoRoot } from './paths';
import { pollUntil } from './poll';

/**
 * Local mode's backend outlives the windows (it idles out on its own); a test that removes the
 * user data folder stops it first and waits for it to exit, so nothing writes there any more.
 */
export async function stopLocalBackends(userDataDir: string, timeoutMs = 60_000): Promise<void> {
  const storage = path.join(userDataDir, 'User', 'globalStorage');
  if (!existsSync(storage)) return;
  const pids: number[] = [];
  for (const folder of readdirSync(storage)) {
    // A backend still starting has the data folder's lock before it writes its discovery file.
    const info = await readDiscovery(path.join(storage, folder, 'backend.json'));
    const lock = await readFile(path.join(storage, folder, 'backend', 'backend.lock'), 'utf8').then(
      (raw) => (JSON.parse(raw) as { pid?: number }).pid,
      () => undefined,
    );
    for (const pid of new Set([info?.pid, lock])) {
      if (typeof pid === 'number' && isProcessAlive(pid)) {
        process.kill(pid, 'SIGTERM');
        pids.push(pid);
      }
    }
  }
  // A backend is not this process's child, so its exit gives no event here.
  await pollUntil(
    () => pids.some(isProcessAlive),
    (alive) => !alive,
    { timeoutMs, intervalMs: 50, what: `backends ${pids.join(', ')} exiting` },
  ).catch(() => undefined);
}

/** Removes a test's folder once no Local mode backend writes into its user data any more. */
export async function removeAfterLocalBackends(root: string, userDataDir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await stopLocalBackends(userDataDir);
    try {
      rmSync(root, { recursive: true, force: true });
      return;
    } catch (error) {
      // A backend that was still being spawned when the window closed: stop it too, then retry.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || attempt >= 20) throw error;
    }
  }
}

/** Where Local mode keeps its files in a profile (`backend/` for the data, `backend.json` for discovery). */
export function localModeStorage(userDataDir: string): string {
  return path.join(userDataDir, 'User', 'globalStorage', `${manifest.publisher}.${manifest.name}`);
}

/** Seeds the Local-mode data folder of a fresh profile with the project's documents, as `npm start` does. */
export async function seedDemoStore(userDataDir: string): Promise<void> {
  const dataDir = path.join(localModeStorage(userDataDir), 'backend');
  await runBackendCli(['--port', '0', '--data-dir', dataDir, '--seed-demo', path.join(repoRoot, 'README.md'), '--seed-only']);
}
