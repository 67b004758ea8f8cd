/**
 * `docchat-backend`: runs the embedded backend as a local server.
 * Prints one JSON line {"url","token","apiKey"} on stdout when listening; logs go to stderr.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { removeDiscoveryIfOwned, upstreamSignature, writeDiscovery } from '../common/discoveryFile';
import { ocrLanguagesError } from './convert/ocrLanguages';
import { DataDirLockedError } from './persistence/lock';
import { seedDemo } from './seed';
import { BACKEND_VERSION, startBackend } from './server';
import type { BackendLogLevel, BackendOptions } from './options';

const HELP = `Usage: docchat-backend [options]

Runs DocChat's local backend: the documents service and the language-model gateway on one
HTTP server (127.0.0.1 by default). Prints {"url","token","apiKey"} as one JSON line on stdout
once it listens; logs go to stderr. Stops cleanly on Ctrl+C (SIGINT) or SIGTERM.

Exit codes: 0 stopped, 1 crashed, 2 bad arguments, 3 the data folder is in use by another backend.

Options:
  --port N               port to listen on (default 0: a free port)
  --host HOST            address to bind (default 127.0.0.1)
  --data-dir DIR         folder for stores, files and the search index (default ./.docchat-data)
  --token T              documents bearer token (default: generated)
  --api-key K            gateway Api-Key (default: the same as the token)
  --no-rate-limits       turn the per-minute rate limits off (Local mode, benchmarks)
  --max-upload-mb N      upload limit in MiB (default 50)
  --ocr-languages L      OCR languages, comma-separated (default eng,ara,fas,heb: English, Arabic,
                         Persian, Hebrew); English is read first, the others when it reads poorly
  --upstream URL         forward chat, embeddings and model lists to an OpenAI-compatible server
  --upstream-key KEY     bearer key for the upstream
  --upstream-embed-model M  upstream embedding model for hybrid search (default: first *embed* model)
  --skills FILE          people directory (JSON) for skillshare (default: the bundled sample)
  --seed-demo PATH...    create the "demo" store (if absent) and add these files/folders to it
  --seed-only            with --seed-demo: seed, then exit without serving
  --upstream-embed-path P  upstream embeddings path: /embeddings (default) or /embed
  --discovery-file FILE  shared mode: write {url,pid,version,token} to FILE (mode 0600) once
                         listening, remove it on exit, and print only {"url","pid"}; the token
                         comes from --token or DOCCHAT_BACKEND_TOKEN, the upstream key from
                         DOCCHAT_UPSTREAM_KEY; a busy --port falls back to a free one
  --idle-exit-ms N       shared mode: exit N ms after the last window lease is gone (default 300000)
  --lease-ttl-ms N       shared mode: a lease not renewed within N ms is gone (default 90000)
  --owner-version V      shared mode: version recorded in the discovery file
  --verbose              log every request
  --help                 show this help
`;

function fail(message: string): never {
  process.stderr.write(`docchat-backend: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        token: { type: 'string' },
        'api-key': { type: 'string' },
        'no-rate-limits': { type: 'boolean' },
        'max-upload-mb': { type: 'string' },
        'ocr-languages': { type: 'string' },
        upstream: { type: 'string' },
        'upstream-key': { type: 'string' },
        'upstream-embed-model': { type: 'string' },
        'upstream-embed-path': { type: 'string' },
        'discovery-file': { type: 'string' },
        'idle-exit-ms': { type: 'string' },
        'lease-ttl-ms': { type: 'string' },
        'owner-version': { type: 'string' },
        skills: { type: 'string' },
        'seed-demo': { type: 'string', multiple: true },
        'seed-only': { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    fail(`${(error as Error).message}\n\n${HELP}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  // `--seed-demo a.md b.md docs/`: the files after the flag arrive as positionals.
  const seedPaths = values['seed-demo'] ? [...values['seed-demo'], ...positionals] : [];
  if (!values['seed-demo'] && positionals.length) fail(`unexpected argument "${positionals[0]}" (see --help)`);
  if (values['seed-only'] && !seedPaths.length) fail('--seed-only needs --seed-demo PATH...');
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0 to 65535 (got ${values.port})`);
  const maxUploadMb = values['max-upload-mb'] === undefined ? undefined : Number(values['max-upload-mb']);
  if (maxUploadMb !== undefined && !(maxUploadMb > 0)) fail('--max-upload-mb must be a positive number');
  const ocrLanguages = values['ocr-languages']?.split(',').map((language) => language.trim());
  const ocrError = ocrLanguages && ocrLanguagesError(ocrLanguages);
  if (ocrError) fail(`--ocr-languages: ${ocrError}`);
  const upstreamKey = values['upstream-key'] || process.env.DOCCHAT_UPSTREAM_KEY || undefined;
  if (values['upstream-key'] && !values.upstream) fail('--upstream-key needs --upstream URL');
  if (values.upstream && !/^https?:\/\//i.test(values.upstream)) fail('--upstream must be an http(s) URL');

  const discoveryFile = values['discovery-file'] ? path.resolve(values['discovery-file']) : undefined;
  const idleExitMs = positiveMs(values['idle-exit-ms'], '--idle-exit-ms', 300_000);
  const leaseTtlMs = positiveMs(values['lease-ttl-ms'], '--lease-ttl-ms', 90_000);
  const ownerVersion = values['owner-version'] ?? BACKEND_VERSION;
  // Secrets from the environment stay out of the process list; worker threads do not need them.
  const token = values.token || process.env.DOCCHAT_BACKEND_TOKEN || randomBytes(24).toString('base64url');
  // The extension's network settings for the backend's own calls (it may hold proxy credentials).
  let network: BackendOptions['network'];
  if (process.env.DOCCHAT_NETWORK) {
    try {
      network = JSON.parse(process.env.DOCCHAT_NETWORK) as BackendOptions['network'];
    } catch {
      fail('DOCCHAT_NETWORK must be a JSON object of network settings');
    }
  }
  delete process.env.DOCCHAT_BACKEND_TOKEN;
  delete process.env.DOCCHAT_UPSTREAM_KEY;
  delete process.env.DOCCHAT_NETWORK;
  const apiKey = values['api-key'] || token;
  const verbose = values.verbose === true;
  const log = (level: BackendLogLevel, message: string) => {
    if ((level === 'debug' || level === 'trace') && !verbose) return;
    process.stderr.write(`[${new Date().toISOString()}] ${level.padEnd(5)} ${message}\n`);
  };

  const dataDir = path.resolve(values['data-dir'] ?? '.docchat-data');
  const upstream = values.upstream
    ? { url: values.upstream, key: upstreamKey, embeddingModel: values['upstream-embed-model'], embedPath: values['upstream-embed-path'] }
    : undefined;
  let stopRequested: ((reason: string) => void) | undefined;
  const start = (listenPort: number) =>
    startBackend({
      host: values.host ?? '127.0.0.1',
      port: listenPort,
      dataDir,
      token,
      apiKey,
      rateLimits: !values['no-rate-limits'],
      maxUploadBytes: maxUploadMb === undefined ? undefined : Math.round(maxUploadMb * 1024 * 1024),
      conversion: ocrLanguages ? { ocrLanguages } : undefined,
      upstream,
      network,
      skillsFile: values.skills ? path.resolve(values.skills) : undefined,
      log,
      lifetime:
        discoveryFile || values['idle-exit-ms']
          ? { idleExitMs, leaseTtlMs, version: ownerVersion, onStop: (reason) => stopRequested?.(reason) }
          : undefined,
    });
  let backend;
  try {
    try {
      backend = await start(port);
    } catch (error) {
      // A restarted shared backend asks for its previous port so open clients keep working.
      if (!discoveryFile || port === 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      log('info', `Port ${port} is taken; listening on a free port instead.`);
      backend = await start(0);
    }
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      process.stderr.write(`docchat-backend: ${error.message}\n`);
      process.exit(3);
    }
    fail((error as Error).message);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log('info', `${signal}: stopping`);
    await backend.close();
    if (discoveryFile) await removeDiscoveryIfOwned(discoveryFile, process.pid).catch(() => undefined);
    process.exit(0);
  };
  stopRequested = (reason) => void stop(reason);
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  if (seedPaths.length) {
    log('info', `Seeding the demo store with ${seedPaths.join(', ')}`);
    const result = await seedDemo(backend.documents, seedPaths);
    for (const file of result.files) {
      log(file.status === 'completed' ? 'info' : 'warn', `  ${file.path}: ${file.status}${file.last_error ? ` (${file.last_error})` : ''}`);
    }
    if (result.skipped.length) log('info', `  ${result.skipped.length} file(s) were already in the demo store.`);
    if (values['seed-only']) {
      process.stdout.write(
        `${JSON.stringify({ seeded: { storeId: result.storeId, added: result.files.length, skipped: result.skipped.length, failed: result.files.filter((f) => f.status !== 'completed').length } })}\n`,
      );
      await backend.close();
      process.exit(result.files.length && result.files.every((f) => f.status !== 'completed') ? 1 : 0);
    }
  }
  if (discoveryFile) {
    await writeDiscovery(discoveryFile, {
      url: backend.url,
      pid: process.pid,
      version: ownerVersion,
      token,
      upstream: upstreamSignature(upstream, network, ocrLanguages),
      startedAt: new Date().toISOString(),
    });
    log(
      'info',
      `Shared backend ${process.pid} (version ${ownerVersion}) listening on ${backend.url}; exits ${idleExitMs} ms after its last window lease.`,
    );
    process.stdout.write(`${JSON.stringify({ url: backend.url, pid: process.pid })}\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify({ url: backend.url, token, apiKey })}\n`);
}

function positiveMs(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) fail(`${flag} must be a positive number of milliseconds (got ${value})`);
  return n;
}

main().catch((error) => {
  process.stderr.write(`docchat-backend: ${(error as Error)?.stack ?? error}\n`);
  process.exit(1);
});
