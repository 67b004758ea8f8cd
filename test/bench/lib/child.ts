/** Runs a bundled benchmark worker in its own Node process and returns the JSON it prints last. */
import { spawn } from 'node:child_process';
import path from 'node:path';

/** Folder of the bundled benchmark scripts (this file is bundled into each of them). */
export const benchOutDir = __dirname;

export function runWorker<T>(script: string, args: string[], options: { nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), path.join(benchOutDir, script), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`${script} ${args.join(' ')} exited with ${code ?? signal}: ${stdout.slice(-2000)}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${script} printed no JSON result: ${stdout.slice(-2000)}`));
      }
    });
  });
}
