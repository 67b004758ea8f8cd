/**
 * The shape of a conversation, declared once: the zod schemas validate what comes back from
 * storage (tolerant: an unknown error kind or action is kept readable, not fatal), and every type
 * the host and the webview use is inferred from them. The webview imports types only, so zod
 * stays out of its bundle.
 */
import * as z from 'zod';

export const tokenUsageSchema = z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() });
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

const sourceRangeSchema = z.object({ startLine: z.number(), startCharacter: z.number(), endLine: z.number(), endCharacter: z.number() });
export type SourceRange = z.infer<typeof sourceRangeSchema>;

/** A passage of a vector store file (from a search, or added from the search quick pick). */
const passageSourceSchema = z.object({
  kind: z.literal('passage'),
  storeId: z.string(),
  storeName: z.string().optional(),
  fileId: z.string(),
  filename: z.string().optional(),
  content: z.string(),
  score: z.number().optional(),
  /** The chunk's place in its file (neighbouring chunks are joined). */
  chunkIndex: z.number().optional(),
  /** The section the passage comes from, e.g. "Install > Linux". */
  heading: z.string().optional(),
});
export type PassageSource = z.infer<typeof passageSourceSchema>;

/** Text selected in an editor ("Ask DocChat about Selection"). */
const selectionSourceSchema = z.object({
  kind: z.literal('selection'),
  uri: z.string(),
  label: z.string(),
  languageId: z.string().optional(),
  range: sourceRangeSchema,
  content: z.string(),
});
export type SelectionSource = z.infer<typeof selectionSourceSchema>;

/** A web page: a `/web` or `/research` source, or a page `/crawl` added as context. */
const webPageSourceSchema = z.object({
  kind: z.literal('web'),
  url: z.string(),
  title: z.string(),
  /** The page's text (crawled pages) or the result snippet (search results); may be empty. */
  content: z.string(),
});
export type WebPageSource = z.infer<typeof webPageSourceSchema>;

export const contextItemSchema = z.discriminatedUnion('kind', [passageSourceSchema, selectionSourceSchema, webPageSourceSchema]);
export type ContextItem = z.infer<typeof contextItemSchema>;

/** A numbered source of an answer: `[n]` in the answer refers to `number === n`. */
const chatSourceSchema = z.intersection(contextItemSchema, z.object({ number: z.number().int() }));
export type ChatSource = z.infer<typeof chatSourceSchema>;

export const ANSWER_STATUSES = ['pending', 'streaming', 'done', 'stopped', 'error'] as const;
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];

export const CHAT_ERROR_KINDS = [
  'network',
  'timeout',
  'auth',
  'rate_limit',
  'model_unavailable',
  'server',
  'stream',
  'invalid_request',
  'not_connected',
  /** The gateway does not offer a tool (HTTP 501, e.g. the local backend without an upstream). */
  'not_available',
  /** The stream ended with no text and no finish reason. */
  'empty',
  /** A vector store the conversation is grounded in was deleted. */
  'store_gone',
  'unknown',
] as const;
export type ChatErrorKind = (typeof CHAT_ERROR_KINDS)[number];

/** Buttons an inline error offers; the host maps them to commands from a fixed allow-list. */
export const ERROR_ACTIONS = [
  'retry',
  'setGatewayApiKey',
  'setDocumentsToken',
  'openGatewaySettings',
  'showOutput',
  'chooseStore',
  /** Moves the focus to the chat's model picker (the webview's own action). */
  'chooseModel',
  /** Local mode: starts DocChat's local backend again (when it stopped), then asks again. */
  'restartLocalBackend',
  /** Local mode: the conversation answers with local-extractive (the webview's own action). */
  'useLocalExtractive',
] as const;
export type ErrorAction = (typeof ERROR_ACTIONS)[number];

/**
 * Ways forward an answer without sources offers as buttons; each runs a DocChat command.
 * `searchDocuments` opens the search with the words the answer searched for, so the passages the
 * relevance check did not take are a keystroke away.
 */
export const NEXT_STEPS = ['searchDocuments', 'chooseStore', 'attachFiles', 'useLanguageModel'] as const;
export type NextStep = (typeof NEXT_STEPS)[number];

/** The gateway tools the composer runs as slash commands (`/web`, `/crawl`, `/research`). */
export const CHAT_TOOL_NAMES = ['web', 'crawl', 'research'] as const;
export type ChatToolName = (typeof CHAT_TOOL_NAMES)[number];

const isErrorAction = (action: string): action is ErrorAction => (ERROR_ACTIONS as readonly string[]).includes(action);

export const chatErrorInfoSchema = z.object({
  kind: z.enum(CHAT_ERROR_KINDS).catch('unknown'),
  message: z.string(),
  /** Rate limits: how long the service asked to wait. */
  retryAfterMs: z.number().optional(),
  actions: z.array(z.string()).transform((actions) => actions.filter(isErrorAction)),
  /**
   * The answer's model cannot be used, and why (`server`: its whole server does not answer): the
   * model lists mark it unavailable with that reason for the rest of the session.
   */
  unavailable: z.object({ reason: z.string(), server: z.boolean().optional() }).optional(),
});
export type ChatErrorInfo = z.infer<typeof chatErrorInfoSchema>;

/** How far a running tool has got (a research task's status poll). */
const toolProgressSchema = z.object({
  text: z.string(),
  /** 0..1 when the service reports it. */
  fraction: z.number().optional(),
});
export type ToolProgress = z.infer<typeof toolProgressSchema>;

/** What every message has, whoever wrote it. */
const messageFields = { id: z.string(), content: z.string(), createdAt: z.number() };

const userMessageSchema = z.object({
  ...messageFields,
  role: z.literal('user'),
  /** Context attached when the question was sent (selection, search results). */
  context: z.array(contextItemSchema).optional(),
});
export type UserMessage = z.infer<typeof userMessageSchema>;

const assistantMessageSchema = z.object({
  ...messageFields,
  role: z.literal('assistant'),
  status: z.enum(ANSWER_STATUSES),
  /** Set when the answer comes from a gateway tool rather than a model. */
  tool: z.enum(CHAT_TOOL_NAMES).optional(),
  /** The tool's last progress report while it runs. */
  progress: toolProgressSchema.optional(),
  /** Set while a reasoning model reasons before its first text: the answer's header says "Thinking…". */
  thinking: z.boolean().optional(),
  /** Set while the answer is streaming; `stop` names it. */
  requestId: z.string().optional(),
  model: z.string().optional(),
  legacy: z.boolean().optional(),
  sources: z.array(chatSourceSchema).optional(),
  usage: tokenUsageSchema.optional(),
  finishReason: z.string().optional(),
  error: chatErrorInfoSchema.optional(),
  /** The answer had no sources to go on: the buttons that lead somewhere. */
  nextSteps: z.array(z.enum(NEXT_STEPS)).optional(),
  /** What the grounding searched for (the question made to stand on its own); the user may edit it. */
  searchQuery: z.string().optional(),
  /** The vector stores the answer's grounding searched: a later turn in other stores starts a new subject. */
  storeIds: z.array(z.string()).optional(),
});
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;

const chatMessageSchema = z.discriminatedUnion('role', [userMessageSchema, assistantMessageSchema]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

const conversationOptionsSchema = z.object({
  model: z.string().optional(),
  temperature: z.number().optional(),
  maxCompletionTokens: z.number().optional(),
  /** The first grounding store (conversations saved before several stores were possible have only this). */
  vectorStoreId: z.string().optional(),
  vectorStoreName: z.string().optional(),
  /** Every store the conversation is grounded in; when present it wins over `vectorStoreId`. */
  vectorStores: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
});
export type ConversationOptions = z.infer<typeof conversationOptionsSchema>;

export const conversationSchema = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  options: conversationOptionsSchema,
  messages: z.array(chatMessageSchema),
  /** Context waiting to be sent with the next question. */
  pendingContext: z.array(contextItemSchema),
});
export type Conversation = z.infer<typeof conversationSchema>;
