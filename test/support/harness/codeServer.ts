import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { codeServerDir, codeServerEntry, codeServerNode, vscodeTarget } from './paths';
import { stopProcess, track } from './processes';

export interface CodeServerOptions {
  extensionsDir: string;
  userDataDir: string;
  /** Folder opened in the workbench. */
  folder: string;
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Extra environment, inherited by the extension host. */
  env?: Record<string, string>;
  /** Receives every line code-server prints. */
  onOutput?: (line: string) => void;
  /** Inherit stdio (interactive use) instead of capturing it. */
  inheritOutput?: boolean;
  /** Leave Workspace Trust on (code-server turns it off with `--disable-workspace-trust` otherwise). */
  workspaceTrust?: boolean;
}

export interface CodeServer {
  url: string;
  port: number;
  process: ChildProcess;
  /** Everything code-server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export function assertCodeServerInstalled(): void {
  if (!existsSync(codeServerEntry()) || !existsSync(codeServerNode())) {
    throw new Error(
      `code-server ${vscodeTarget().codeServer} or its Node is not installed in ${codeServerDir()}; run: node scripts/install-code-server.mjs --target=${vscodeTarget().name}`,
    );
  }
}

/** Starts code-server and resolves once it listens (its own log line gives the real port). */
export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  assertCodeServerInstalled();
  // An explicit config file keeps code-server from writing one into the user's home folder.
  const configFile = path.join(options.userDataDir, 'code-server.yaml');
  if (!existsSync(configFile)) writeFileSync(configFile, 'auth: none\ncert: false\n');
  const args = [
    codeServerEntry(),
    '--config',
    configFile,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${options.port ?? 0}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--extensions-dir',
    options.extensionsDir,
    '--user-data-dir',
    options.userDataDir,
    options.folder,
  ];
  const child = spawn(codeServerNode(), args, {
    cwd: options.folder,
    // Local mode's shared backend outlives the window; in tests it stops soon after the last one.
    env: { DOCCHAT_LOCAL_IDLE_EXIT_MS: '5000', ...process.env, ...options.env },
    detached: true,
    stdio: options.inheritOutput ? ['ignore', 'pipe', 'inherit'] : ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let output = '';
  const listening = new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (options.inheritOutput) process.stdout.write(text);
      for (const line of text.split('\n')) if (line.trim()) options.onOutput?.(line);
      const match = /HTTP server listening on https?:\/\/[^:\s]+:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`code-server exited (${signal ?? code}) before listening:\n${output}`)));
  });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`code-server did not listen within 60 s:\n${output}`)), 60_000).unref(),
  );
  let port: number;
  try {
    port = await Promise.race([listening, timeout]);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    process: child,
    output: () => output,
    stop: () => stopProcess(child),
  };
}
