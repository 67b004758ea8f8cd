/** Starts the built `docchat-backend` CLI (dist/backend-cli.js) in its own process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

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

export function startBackendProcess(dataDir: string, token: string): Promise<BackendProcess> {
  const cli = path.join(repoRoot, 'dist/backend-cli.js');
  const child = spawn(
    process.execPath,
    [cli, '--port', '0', '--data-dir', dataDir, '--token', token, '--api-key', token, '--no-rate-limits'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`docchat-backend did not start in 60 s: ${stderr}`));
    }, 60_000);
    child.once('exit', (code) => reject(new Error(`docchat-backend exited with ${code}: ${stderr}`)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.includes('"url"'));
      if (!line) return;
      clearTimeout(timer);
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        token,
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
