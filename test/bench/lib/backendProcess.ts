/** Starts the built `docchat-backend` CLI (dist/backend-cli.js) in its own process, through the test harness's one spawner. */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startBackendProcess as startCli } from '../../support/harness/backend';

/** The repository root, whether this runs bundled (out/bench) or from source (test/bench/lib). */
export const repoRoot = (() => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'esbuild.mjs'))) return dir;
  }
  throw new Error(`no repository root above ${__dirname}`);
})();

export interface BackendProcess {
  url: string;
  token: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startBackendProcess(dataDir: string, token: string): Promise<BackendProcess> {
  const backend = await startCli({ dataDir, token, apiKey: token, args: ['--no-rate-limits'] });
  return { url: backend.url, token, child: backend.process, stop: () => backend.stop() };
}
