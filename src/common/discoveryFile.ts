/**
 * The discovery file of the shared local backend process (one per VS Code profile), in the
 * profile's global storage folder: where the backend listens, its process id, the version of the
 * extension that started it, and the token every window of the profile uses. Like Jupyter's
 * connection files it is written atomically and readable by its owner only (mode 0600); it holds
 * a secret, so its content never reaches a log. Plain Node: the backend writes it, the
 * extension reads it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export const DISCOVERY_FILE_NAME = 'backend.json';
/** In the backend's data folder: names the one process that serves the folder (`{ pid, url }`). */
export const LOCK_FILE_NAME = 'backend.lock';

export interface DiscoveryInfo {
  url: string;
  pid: number;
  version: string;
  token: string;
  /** Hash of the upstream the backend forwards embeddings to, or null for none. */
  upstream: string | null;
  startedAt: string;
}

/** A short hash naming the upstream (the key included), so its key never lands in the file. */
export function upstreamSignature(
  upstream: { url: string; key?: string; embeddingModel?: string; embedPath?: string } | undefined,
  network?: Record<string, unknown>,
  /** OCR languages other than the default (none: the default, and the signature is as without them). */
  ocrLanguages?: readonly string[],
): string | null {
  const hasNetwork = network !== undefined && Object.values(network).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  const hasLanguages = ocrLanguages !== undefined && ocrLanguages.length > 0;
  if (!upstream && !hasNetwork && !hasLanguages) return null;
  const canonical = JSON.stringify([
    upstream?.url ?? '',
    upstream?.key ?? '',
    upstream?.embeddingModel ?? '',
    upstream?.embedPath ?? '',
    hasNetwork ? network : null,
    ...(hasLanguages ? [ocrLanguages] : []),
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/** Writes the file whole (temporary file + rename), mode 0600. */
export async function writeDiscovery(file: string, info: DiscoveryInfo): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temporary, `${JSON.stringify(info)}\n`, { mode: 0o600, flag: 'wx' });
    await fs.chmod(temporary, 0o600);
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

/** The file's content, or undefined when it is missing, torn or not ours. */
export async function readDiscovery(file: string): Promise<DiscoveryInfo | undefined> {
  let raw: string;
  try {
    raw = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(raw) as Partial<DiscoveryInfo>;
    if (
      typeof value.url !== 'string' ||
      typeof value.pid !== 'number' ||
      typeof value.token !== 'string' ||
      typeof value.version !== 'string'
    ) {
      return undefined;
    }
    return {
      url: value.url,
      pid: value.pid,
      version: value.version,
      token: value.token,
      upstream: value.upstream ?? null,
      startedAt: String(value.startedAt ?? ''),
    };
  } catch {
    return undefined;
  }
}

/** Removes the file if it still names this process (a newer backend may have replaced it). */
export async function removeDiscoveryIfOwned(file: string, pid: number): Promise<void> {
  const info = await readDiscovery(file);
  if (info?.pid === pid) await fs.rm(file, { force: true });
}

/** Whether a process with this id exists (EPERM: it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Compares dotted versions numerically: negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split(/[.+-]/).map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}
