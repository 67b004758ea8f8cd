/**
 * The embedded DocChat backend: the documents service and the language-model gateway on one
 * local HTTP server. Plain Node (no `vscode`), used by the extension's Local mode, the
 * `docchat-backend` command, tests and benchmarks.
 */
export { startBackend, BACKEND_VERSION, type RunningBackend } from './server';
export type { BackendOptions, BackendLog, BackendLogLevel, UpstreamOptions } from './options';
export { DEFAULT_MAX_UPLOAD_BYTES } from './options';
export { DataDirLockedError } from './persistence/lock';
export { LOCAL_CHAT_MODEL } from './gateway/models';
export { LOCAL_EMBEDDING_MODEL } from './gateway/localEmbedding';
export { seedDemo, type SeedResult } from './seed';
export { StoreIndex } from './search/storeIndex';
export { chunkMarkdown } from './chunking/chunker';
