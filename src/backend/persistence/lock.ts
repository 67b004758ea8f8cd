import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isProcessAlive, LOCK_FILE_NAME } from '../../common/discoveryFile';

/** Another live backend process already serves this data folder. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    /** URL of the running backend, when it has started listening. */
    readonly url: string | undefined,
  ) {
    super(`The data folder ${dataDir} is in use by another DocChat backend (process ${pid}${url ? `, ${url}` : ''}).`);
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  /** Records the URL so a second instance can tell the user (or connect to it). */
  setUrl(url: string): Promise<void>;
  release(): Promise<void>;
}

/** One backend per data folder: two writers appending to one journal would corrupt it. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE_NAME);
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await fs.open(file, 'wx');
      await handle.writeFile(JSON.stringify({ pid: process.pid }));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error;
      let holder: { pid?: number; url?: string } = {};
      try {
        holder = JSON.parse(await fs.readFile(file, 'utf8'));
      } catch {
        // A lock file torn by a crash belongs to nobody.
      }
      if (typeof holder.pid === 'number' && holder.pid !== process.pid && isProcessAlive(holder.pid)) {
        throw new DataDirLockedError(dataDir, holder.pid, holder.url);
      }
      if (holder.pid === process.pid) throw new DataDirLockedError(dataDir, holder.pid, holder.url);
      await fs.rm(file, { force: true });
    }
  }
  let released = false;
  return {
    async setUrl(url) {
      if (!released) await fs.writeFile(file, JSON.stringify({ pid: process.pid, url }));
    },
    async release() {
      if (released) return;
      released = true;
      await fs.rm(file, { force: true });
    },
  };
}
