import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isProcessAlive, readDiscovery } from '../../../src/common/discoveryFile';

/**
 * Local mode's backend outlives the windows (it idles out on its own); a test that removes the
 * user data folder stops it first and waits for it to exit, so nothing writes there any more.
 */
export async function stopLocalBackends(userDataDir: string, timeoutMs = 60_000): Promise<void> {
  const storage = path.join(userDataDir, 'User', 'globalStorage');
  if (!existsSync(storage)) return;
  const pids: number[] = [];
  for (const folder of readdirSync(storage)) {
    const info = await readDiscovery(path.join(storage, folder, 'backend.json'));
    if (info && isProcessAlive(info.pid)) {
      process.kill(info.pid, 'SIGTERM');
      pids.push(info.pid);
    }
  }
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isProcessAlive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
