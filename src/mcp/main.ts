/**
 * `dist/mcp-server.js`: DocChat's MCP server on stdio. Remote mode reads the documents URL and
 * token from the environment; Local mode joins the profile's local backend through its
 * discovery file, starting it when none runs. Logs go to stderr, never a secret. No `vscode` import.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as l10n from '@vscode/l10n';
import { DocumentsClient } from '../api/documents/client';
import { redactUserInfo } from '../api/http/dispatcher';
import type { LogLevel } from '../api/http/options';
import { LeaseClient } from '../api/lifetime/client';
import type { Logger } from '../common/log';
import { LocalBackend } from '../services/localBackend';
import { DocumentsCatalog } from './catalog';
import { type McpServerConfig, readMcpConfig } from './environment';
import { createDocChatMcpServer } from './server';
import { GuardedStdioTransport } from './stdioTransport';
import { BoundedWaits } from './toolCalls';

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];

function stderrLogger(component: string, minimum: LogLevel): Logger {
  const write = (level: LogLevel, message: string) => {
    if (LEVELS.indexOf(level) >= LEVELS.indexOf(minimum)) process.stderr.write(`[${level}] [${component}] ${message}\n`);
  };
  const logger: Logger = {
    trace: (m) => write('trace', m),
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', typeof m === 'string' ? m : (m.stack ?? m.message)),
    child: (name) => stderrLogger(name, minimum),
    sink: () => write,
  };
  return logger;
}

/** The folder of the extension (where package.json is), from this bundle in its dist/ or from source. */
const fromSource = __filename.endsWith('.ts');
const extensionPath = path.resolve(__dirname, fromSource ? '../..' : '..');

function extensionVersion(): string {
  try {
    return String((JSON.parse(readFileSync(path.join(extensionPath, 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}

async function main(): Promise<void> {
  const config = readMcpConfig(process.env);
  const log = stderrLogger('mcp', process.env.DOCCHAT_MCP_LOG_LEVEL === 'debug' ? 'debug' : 'info');
  if (typeof config === 'string') {
    log.error(config);
    process.exitCode = 2;
    return;
  }
  if (config.l10nBundle) {
    // Translations that cannot be read (an extension folder replaced by an update) leave the answers in English, not the server down.
    try {
      l10n.config({ fsPath: config.l10nBundle });
    } catch (error) {
      log.warn(
        `The translations in ${config.l10nBundle} cannot be read (${error instanceof Error ? error.message : String(error)}); answering in English.`,
      );
    }
  }
  const version = extensionVersion();
  const waits = new BoundedWaits(config.maxWaitMs);
  const { documents, stop } = connect(config, version, waits, log);
  // One stdio connection, served in the protocol generation its first request opens: the 2025
  // revisions (initialize) or 2026-07-28 (stateless requests, server/discover).
  const catalog = new DocumentsCatalog();
  const handle = serveStdio(() => createDocChatMcpServer({ version, documents, waits, allowChanges: config.allowChanges, catalog }), {
    transport: new GuardedStdioTransport(),
    onerror: (error) => log.debug(`protocol: ${error.message}`),
  });
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await handle.close().catch(() => undefined);
    await stop();
    process.exit(0);
  };
  process.stdin.once('end', () => void shutdown());
  process.stdin.once('close', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  log.info(
    `DocChat MCP server ${version} ready (${config.target.kind === 'remote' ? `documents service at ${redactUserInfo(config.target.url)}` : 'Local mode'}${config.allowChanges ? ', changes allowed' : ''})`,
  );
}

/** The documents client: at once in Remote mode; in Local mode after joining (or starting) the backend. */
function connect(config: McpServerConfig, version: string, waits: BoundedWaits, log: Logger) {
  const clientOptions = {
    onRateLimitWait: waits.onRateLimitWait,
    log: log.child('api').sink(),
    fileIdsField: config.fileIdsField,
    transport: { userAgent: `DocChat-MCP/${version}` },
  };
  const target = config.target;
  if (target.kind === 'remote') {
    const client = new DocumentsClient({ ...clientOptions, baseUrl: target.url, token: target.token });
    return { documents: async () => client, stop: () => client.close() };
  }
  const backend = new LocalBackend({ extensionPath, globalStorageUri: { fsPath: target.storageDir } }, log.child('local'), {
    version,
    anyUpstream: true,
    leaseClient: (options) => new LeaseClient(options),
    execPath: process.execPath,
    ...(fromSource
      ? { execArgv: ['--require', 'tsx/cjs'], script: path.join(extensionPath, 'src/backend/cli.ts') }
      : { script: path.join(__dirname, 'backend-cli.js') }),
  });
  let client: Promise<DocumentsClient> | undefined;
  const documents = () => {
    client ??= backend.start().then(
      (endpoint) =>
        new DocumentsClient({ ...clientOptions, baseUrl: endpoint.url, token: endpoint.token, onUnreachable: () => backend.probe() }),
      (error: unknown) => {
        client = undefined; // the next call tries again
        throw error;
      },
    );
    return client;
  };
  return {
    documents,
    stop: async () => {
      await (await client?.catch(() => undefined))?.close();
      await backend.stop();
      backend.dispose();
    },
  };
}

void main().catch((error: unknown) => {
  process.stderr.write(`[error] [mcp] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
