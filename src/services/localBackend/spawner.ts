/**
 * Starting the backend process: `dist/backend-cli.js` under the editor's own Node
 * (`process.execPath` with ELECTRON_RUN_AS_NODE=1), detached so it outlives the window that
 * started it, its stderr appended to the backend log. Secrets (the token, the upstream key, the
 * proxy credentials) go in its environment, never on its command line. Plain Node, no `vscode` import.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { isProcessAlive } from '../../common/discoveryFile';
import type { BackendFiles } from './discovery';

/** The backend's exit code when another process already serves its data folder. */
const EXIT_DATA_DIR_LOCKED = 3;

export interface SpawnSpec {
  files: BackendFiles;
  /** Node to run with, the flags before the script, and the script. */
  execPath: string;
  execArgv: readonly string[];
  script: string;
  ownerVersion: string;
  idleExitMs: number;
  leaseTtlMs: number;
  /** Keep the token and port of a backend that crashed, so open clients keep working. */
  token?: string;
  port: number;
  upstream?: { url: string; key?: string; embeddingModel?: string; embedPath?: string };
  /** Network settings for the backend's own calls, as JSON in its environment. */
  network?: unknown;
  /** OCR languages other than the backend's default. */
  ocrLanguages?: readonly string[];
}

export type SpawnOutcome =
  | { kind: 'started'; child: ChildProcess }
  /** Another process won the data folder: its discovery file is read next. */
  | { kind: 'locked' }
  | { kind: 'failed'; why: string };

/** Starts a backend process and resolves once its discovery file names it, or it exited. */
export async function spawnBackend(spec: SpawnSpec): Promise<SpawnOutcome> {
  const { files, upstream } = spec;
  await fs.mkdir(files.storageDir, { recursive: true });
  const logHandle = await fs.open(files.logFile, 'a', 0o600);
  const args = [
    ...spec.execArgv,
    spec.script,
    '--data-dir',
    files.dataDir,
    '--discovery-file',
    files.discoveryFile,
    '--port',
    String(spec.port),
    '--owner-version',
    spec.ownerVersion,
    '--idle-exit-ms',
    String(spec.idleExitMs),
    '--lease-ttl-ms',
    String(spec.leaseTtlMs),
    // The per-minute limits share a service among its users; this process serves one user, on
    // their own machine (its conversions have bounds of their own).
    '--no-rate-limits',
    ...(upstream ? ['--upstream', upstream.url] : []),
    ...(upstream?.embeddingModel ? ['--upstream-embed-model', upstream.embeddingModel] : []),
    ...(upstream?.embedPath ? ['--upstream-embed-path', upstream.embedPath] : []),
    ...(spec.ocrLanguages?.length ? ['--ocr-languages', spec.ocrLanguages.join(',')] : []),
  ];
  let child: ChildProcess;
  try {
    child = spawn(spec.execPath, args, {
      detached: true,
      stdio: ['ignore', 'ignore', logHandle.fd],
      windowsHide: true,
      env: {
        ...process.env,
        ELECTRON_RUN_AS_NODE: '1',
        DOCCHAT_BACKEND_TOKEN: spec.token ?? randomBytes(32).toString('base64url'),
        ...(upstream?.key ? { DOCCHAT_UPSTREAM_KEY: upstream.key } : {}),
        ...(spec.network ? { DOCCHAT_NETWORK: JSON.stringify(spec.network) } : {}),
      },
    });
  } finally {
    await logHandle.close();
  }
  child.unref();
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? String(signal)));
    child.once('error', (error) => resolve(error.message));
  });
  let outcome: number | string | undefined;
  void exited.then((value) => (outcome = value));
  while (outcome === undefined) {
    const info = await files.readDiscovery();
    if (info?.pid === child.pid) return { kind: 'started', child };
    await Promise.race([delay(100), exited]);
  }
  if (outcome === EXIT_DATA_DIR_LOCKED) return { kind: 'locked' };
  return { kind: 'failed', why: typeof outcome === 'number' ? `it exited with code ${outcome}` : `it ended (${outcome})` };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid) && Date.now() < deadline) await delay(50);
}
