/** API clients of the documents service and the gateway. Plain TypeScript: no `vscode` import. */
export * from './http/errors';
export type { CallOptions, ClientOptions, LogLevel, LogSink, Operation, TransportOptions } from './http/options';
export type { ListPage, ListParams, Paginator } from './http/pagination';
export { type Clock, systemClock } from './http/clock';
export { createDispatcher } from './http/dispatcher';
export { isLoopbackHost } from './http/transport';
export { DocumentsClient, type DocumentsClientOptions, type WaitOptions } from './documents/client';
export {
  DEFAULT_FILE_IDS_FIELD,
  DEFAULT_SKIP_OCR_FIELD,
  DOCUMENTS_RATE_LIMITS,
  type DocumentsOperation,
  type FileObject,
  LIMITS,
  type Metadata,
  type SearchResult,
  type SearchResultItem,
  TERMINAL_FILE_STATUSES,
  validateMetadata,
  validateStoreName,
  VECTOR_STORE_FILE_STATUSES,
  type VectorStore,
  type VectorStoreFile,
} from './documents/schemas';
export { GatewayClient, type GatewayClientOptions, type ResearchWaitOptions } from './gateway/client';
export {
  type ChatCompletion,
  type ChatMessage,
  type ChatRequest,
  type ChatStreamPart,
  COMPLETION_MODELS,
  EMBEDDING_MODELS,
  type EmbeddingResponse,
  type EmbedRequest,
  type GatewayOperation,
  INFERENCE_RETIREMENT,
  type InferenceRequest,
  type InferenceResponse,
  LEGACY_INFERENCE_MODELS,
  type ModelInfo,
  NO_PROJECT_CODE,
  type ResearchTask,
  type ResponseFormat,
  type SkillResult,
  type ToolCallDelta,
  type Usage,
  type WebCrawlResponse,
  type WebSearchRequest,
  type WebSearchResponse,
} from './gateway/schemas';
