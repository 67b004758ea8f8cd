import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths';
import { stopProcess, track } from './processes';

export interface BackendProcessOptions {
  /** Defaults to a fresh temporary folder, removed by `stop()`. */
  dataDir?: string;
  token?: string;
  apiKey?: string;
  /** More command-line flags, e.g. `['--no-rate-limits']`. */
  args?: string[];
  /** Run `src/backend/cli.ts` through tsx instead of the build (unit tests run without one). */
  fromSource?: boolean;
}

export interface BackendProcess {
  url: string;
  token: string;
  apiKey: string;
  dataDir: string;
  process: ChildProcess;
  /** Everything it printed so far (its log is on stderr). */
  output(): string;
  /** SIGKILL, as a crash or the OOM killer would end it; resolves once it exited. */
  kill(): Promise<void>;
  /** A JSON request to the documents service with the Bearer token; throws on a non-2xx status. */
  request<T = unknown>(method: string, urlPath: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export const BACKEND_CLI = path.join(repoRoot, 'dist/backend-cli.js');
const BACKEND_CLI_SOURCE = path.join(repoRoot, 'src/backend/cli.ts');

/**
 * The command line that runs `docchat-backend`: the built `dist/backend-cli.js`, or with
 * `fromSource` its TypeScript entry through tsx (unit tests, which run without a build). Every
 * test starts the backend's command line through here.
 */
export function backendCliCommand(args: string[], options: { fromSource?: boolean } = {}): { command: string; args: string[] } {
  if (options.fromSource) return { command: process.execPath, args: ['--require', 'tsx/cjs', BACKEND_CLI_SOURCE, ...args] };
  if (!existsSync(BACKEND_CLI)) throw new Error(`${BACKEND_CLI} is missing: run \`npm run build\` first`);
  return { command: process.execPath, args: [BACKEND_CLI, ...args] };
}

/** Runs `docchat-backend` to its end (e.g. `--seed-only`); resolves with its output, rejects on a non-zero exit. */
export function runBackendCli(args: string[], options: { fromSource?: boolean } = {}): Promise<string> {
  const { command, args: fullArgs } = backendCliCommand(args, options);
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, fullArgs, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    track(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve(output) : reject(new Error(`docchat-backend ${args.join(' ')} ended (${signal ?? code}):\n${output}`)),
    );
  });
}

/**
 * Runs the embedded backend's command-line entry (the built `dist/backend-cli.js`, or its source)
 * on a random 127.0.0.1 port and resolves with the `{url, token, apiKey}` line it prints when listening.
 */
export async function startBackendProcess(options: BackendProcessOptions = {}): Promise<BackendProcess> {
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'docchat-backend-'));
  const cliArgs = ['--port', '0', '--data-dir', dataDir];
  if (options.token) cliArgs.push('--token', options.token);
  if (options.apiKey) cliArgs.push('--api-key', options.apiKey);
  cliArgs.push(...(options.args ?? []));
  const { command, args } = backendCliCommand(cliArgs, options);
  const child = spawn(command, args, { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  let output = '';
  const ready = new Promise<{ url: string; token: string; apiKey: string }>((resolve, reject) => {
    let stdoutBuffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      stdoutBuffer += chunk.toString();
      let newline: number;
      while ((newline = stdoutBuffer.indexOf('\n')) >= 0) {
        const line = stdoutBuffer.slice(0, newline).trim();
        stdoutBuffer = stdoutBuffer.slice(newline + 1);
        if (!line.startsWith('{')) continue;
        try {
          const parsed = JSON.parse(line);
          if (typeof parsed.url === 'string') resolve(parsed);
        } catch {
          // Not the announcement line.
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`backend exited (${signal ?? code}):\n${output}`)));
    setTimeout(() => reject(new Error(`backend did not announce its URL within 90 s:\n${output}`)), 90_000).unref();
  });
  let announced: { url: string; token: string; apiKey: string };
  try {
    announced = await ready;
  } catch (error) {
    await stopProcess(child);
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const url = announced.url.replace(/\/$/, '');
  return {
    url,
    token: announced.token,
    apiKey: announced.apiKey,
    dataDir,
    process: child,
    output: () => output,
    kill() {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      return exited;
    },
    async request<T>(method: string, urlPath: string, body?: unknown): Promise<T> {
      const response = await fetch(`${url}${urlPath}`, {
        method,
        headers: {
          authorization: `Bearer ${announced.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${urlPath} -> ${response.status}: ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
    async stop() {
      await stopProcess(child);
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
