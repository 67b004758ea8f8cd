/**
 * Finding the profile's backend: the files in its storage folder (the discovery file the backend
 * writes, the data folder's lock file, the backend's log) and the verdict on the backend a
 * discovery file names. Plain Node, no `vscode` import (the MCP server uses it too).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Lease } from '../../api/lifetime/schemas';
import { isDocChatError } from '../../api/http/errors';
import {
  compareVersions,
  DISCOVERY_FILE_NAME,
  isProcessAlive,
  LOCK_FILE_NAME,
  readDiscovery,
  type DiscoveryInfo,
} from '../../common/discoveryFile';

/** Where a profile's backend keeps its files. */
export class BackendFiles {
  constructor(readonly storageDir: string) {}

  get dataDir(): string {
    return path.join(this.storageDir, 'backend');
  }
  get discoveryFile(): string {
    return path.join(this.storageDir, DISCOVERY_FILE_NAME);
  }
  get logFile(): string {
    return path.join(this.storageDir, 'backend.log');
  }

  readDiscovery(): Promise<DiscoveryInfo | undefined> {
    return readDiscovery(this.discoveryFile);
  }

  /** The pid in the data folder's lock file: the process that really serves the data. */
  async lockHolder(): Promise<number | undefined> {
    try {
      const lock = JSON.parse(await fs.readFile(path.join(this.dataDir, LOCK_FILE_NAME), 'utf8')) as { pid?: unknown };
      return typeof lock.pid === 'number' ? lock.pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Removes the discovery file if it still names the same start of the same process. */
  async removeDiscoveryIf(info: DiscoveryInfo): Promise<void> {
    const current = await this.readDiscovery();
    if (current && current.pid === info.pid && current.startedAt === info.startedAt) {
      await fs.rm(this.discoveryFile, { force: true });
    }
  }
}

export type Verdict =
  | { kind: 'ok'; info: DiscoveryInfo }
  | { kind: 'replace'; info: DiscoveryInfo; why: string }
  | { kind: 'stale'; info: DiscoveryInfo; why: string }
  /** Its process died (a crash): start a new one with the same token and port. */
  | { kind: 'gone'; info: DiscoveryInfo }
  /** Alive, holds the data folder, but does not answer yet (still loading its data). */
  | { kind: 'busy'; info: DiscoveryInfo };

export interface Wanted {
  /** This window's version: an older backend is replaced. */
  version: string;
  /** The upstream this window wants, as `upstreamSignature` names it. */
  upstream: string | null;
  /** Any upstream will do (the MCP server). */
  anyUpstream?: boolean;
}

/**
 * What to do with the backend a discovery file names. `claim` takes this window's lease there,
 * which also proves the file's token works.
 */
export async function judge(
  info: DiscoveryInfo,
  files: BackendFiles,
  wanted: Wanted,
  claim: (info: DiscoveryInfo) => Promise<Lease>,
): Promise<Verdict> {
  if (!isProcessAlive(info.pid)) return { kind: 'gone', info };
  let lease: Lease;
  try {
    lease = await claim(info);
  } catch (error) {
    const status = isDocChatError(error) ? error.status : undefined;
    if (status === 401) return { kind: 'stale', info, why: 'the backend there does not accept its token' };
    if (status !== undefined || (isDocChatError(error) && error.kind === 'protocol')) {
      return { kind: 'stale', info, why: `the backend there answered ${status ?? 'something else'}` };
    }
    // Alive but not answering: still loading its data, or the pid belongs to something else now.
    return (await files.lockHolder()) === info.pid
      ? { kind: 'busy', info }
      : { kind: 'stale', info, why: 'nothing answers at its address' };
  }
  if (lease.pid !== info.pid) return { kind: 'stale', info, why: `the backend there is process ${lease.pid}` };
  if (compareVersions(lease.version, wanted.version) < 0) {
    return { kind: 'replace', info, why: `it runs version ${lease.version}, this window ${wanted.version}` };
  }
  if (info.upstream !== wanted.upstream && !wanted.anyUpstream) {
    return { kind: 'replace', info, why: 'the embeddings upstream changed' };
  }
  return { kind: 'ok', info };
}
