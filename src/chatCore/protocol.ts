/**
 * The chat webview's message protocol, declared once and imported by both the extension host
 * (src/features/chat) and the webview bundle (media/chat). The webview imports types only, so
 * zod stays out of its bundle; the host validates every incoming message with the schemas below
 * and ignores anything else.
 *
 * Streams: every answer has a request id. The host posts `streamStart`, any number of
 * `streamDelta`, then exactly one `streamDone` or `streamError` for that id.
 *
 * Gateway tools: a `send` whose text is `/web <query>`, `/crawl <url…>` or `/research <topic>` is
 * answered by the tool instead of a model, through the same stream messages: `streamProgress`
 * while it runs (research polls), then `streamStart` with the web pages as sources, the result as
 * `streamDelta`, and one `streamDone` or `streamError`. `stop` with its request id cancels it.
 */
import * as z from 'zod';

// ---------------------------------------------------------------- shared data

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface SourceRange {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
}

/** A passage of a vector store file (from a search, or added from the search quick pick). */
export interface PassageSource {
  kind: 'passage';
  storeId: string;
  storeName?: string;
  fileId: string;
  filename?: string;
  content: string;
  score?: number;
  /** The chunk's place in its file (neighbouring chunks are joined). */
  chunkIndex?: number;
  /** The section the passage comes from, e.g. "Install > Linux". */
  heading?: string;
}

/** Text selected in an editor ("Ask DocChat about Selection"). */
export interface SelectionSource {
  kind: 'selection';
  uri: string;
  label: string;
  languageId?: string;
  range: SourceRange;
  content: string;
}

/** A web page: a `/web` or `/research` source, or a page `/crawl` added as context. */
export interface WebPageSource {
  kind: 'web';
  url: string;
  title: string;
  /** The page's text (crawled pages) or the result snippet (search results); may be empty. */
  content: string;
}

export type ContextItem = PassageSource | SelectionSource | WebPageSource;

/** A numbered source of an answer: `[n]` in the answer refers to `number === n`. */
export type ChatSource = ContextItem & { number: number };

export type AnswerStatus = 'pending' | 'streaming' | 'done' | 'stopped' | 'error';

export type ChatErrorKind =
  | 'network'
  | 'timeout'
  | 'auth'
  | 'rate_limit'
  | 'model_unavailable'
  | 'server'
  | 'stream'
  | 'invalid_request'
  | 'not_connected'
  /** The gateway does not offer a tool (HTTP 501, e.g. the local backend without an upstream). */
  | 'not_available'
  | 'unknown';

/** Buttons an inline error offers; the host maps them to commands from a fixed allow-list. */
export type ErrorAction = 'retry' | 'setGatewayApiKey' | 'setDocumentsToken' | 'showOutput';

/** Ways forward an answer without sources offers as buttons; each runs a DocChat command. */
export type NextStep = 'chooseStore' | 'attachFiles' | 'useLanguageModel';
export const NEXT_STEPS: readonly NextStep[] = ['chooseStore', 'attachFiles', 'useLanguageModel'];

export interface ChatErrorInfo {
  kind: ChatErrorKind;
  message: string;
  /** Rate limits: how long the service asked to wait. */
  retryAfterMs?: number;
  actions: ErrorAction[];
}

export interface UserMessage {
  id: string;
  role: 'user';
  content: string;
  createdAt: number;
  /** Context attached when the question was sent (selection, search results). */
  context?: ContextItem[];
}

/** The gateway tools the composer runs as slash commands (`/web`, `/crawl`, `/research`). */
export type ChatToolName = 'web' | 'crawl' | 'research';

/** How far a running tool has got (a research task's status poll). */
export interface ToolProgress {
  text: string;
  /** 0..1 when the service reports it. */
  fraction?: number;
}

export interface AssistantMessage {
  id: string;
  role: 'assistant';
  content: string;
  createdAt: number;
  status: AnswerStatus;
  /** Set when the answer comes from a gateway tool rather than a model. */
  tool?: ChatToolName;
  /** The tool's last progress report while it runs. */
  progress?: ToolProgress;
  /** Set while the answer is streaming; `stop` names it. */
  requestId?: string;
  model?: string;
  legacy?: boolean;
  sources?: ChatSource[];
  usage?: TokenUsage;
  finishReason?: string;
  error?: ChatErrorInfo;
  /** The answer had no sources to go on: the buttons that lead somewhere. */
  nextSteps?: NextStep[];
  /** What the grounding searched for (the question made to stand on its own); the user may edit it. */
  searchQuery?: string;
}

export type ChatMessage = UserMessage | AssistantMessage;

export interface ConversationOptions {
  model?: string;
  temperature?: number;
  maxCompletionTokens?: number;
  /** The first grounding store (conversations saved before several stores were possible have only this). */
  vectorStoreId?: string;
  vectorStoreName?: string;
  /** Every store the conversation is grounded in; when present it wins over `vectorStoreId`. */
  vectorStores?: StoreOption[];
}

export interface Conversation {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  options: ConversationOptions;
  messages: ChatMessage[];
  /** Context waiting to be sent with the next question. */
  pendingContext: ContextItem[];
}

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: number;
}

export interface ModelOption {
  id: string;
  /** `legacy`: only reachable through the deprecated inference endpoint. */
  kind: 'completion' | 'legacy';
  /** Legacy models: when the inference endpoint retires. */
  retirement?: string;
}

export interface ModelCatalogState {
  models: ModelOption[];
  loading: boolean;
  error?: string;
  /** The model new conversations start with. */
  defaultModel?: string;
}

export interface StoreOption {
  id: string;
  name: string;
}

export interface StoreCatalogState {
  stores: StoreOption[];
  loading: boolean;
  error?: string;
}

export type StreamPhase = 'searching' | 'generating';

// ---------------------------------------------------------------- host -> webview

/** `asTheyStream`: each finished block of a streaming answer; `whenDone`: the answer once; `off`. */
export type AnnounceMode = 'asTheyStream' | 'whenDone' | 'off';
export const ANNOUNCE_MODES: readonly AnnounceMode[] = ['asTheyStream', 'whenDone', 'off'];

export type HostMessage =
  | {
      type: 'state';
      conversation: Conversation;
      conversations: ConversationSummary[];
      projectCode: string;
      /** How the screen-reader live region reads answers (`docchat.chat.announceAnswers`). */
      announce?: AnnounceMode;
    }
  /**
   * A new turn of the shown conversation (a question and its answer, or a regenerated answer):
   * its messages from index `from` on are `messages`. Sent instead of the whole conversation, so
   * a long one costs nothing more to continue.
   */
  | {
      type: 'turn';
      conversationId: string;
      title: string;
      from: number;
      messages: ChatMessage[];
      pendingContext: ContextItem[];
    }
  /** The shown conversation's options changed (model, store, sampling): nothing else is sent again. */
  | { type: 'options'; conversationId: string; options: ConversationOptions }
  | { type: 'models'; catalog: ModelCatalogState }
  | { type: 'stores'; catalog: StoreCatalogState }
  | { type: 'streamStart'; requestId: string; messageId: string; sources: ChatSource[]; searchQuery?: string }
  | { type: 'streamStatus'; requestId: string; phase: StreamPhase }
  /** A running tool's progress (research polls); replaces the previous report. */
  | { type: 'streamProgress'; requestId: string; progress: ToolProgress }
  | { type: 'streamDelta'; requestId: string; text: string }
  | { type: 'streamDone'; requestId: string; stopped: boolean; usage?: TokenUsage; finishReason?: string; nextSteps?: NextStep[] }
  | { type: 'streamError'; requestId: string; error: ChatErrorInfo }
  | { type: 'focusComposer' };

export type HostMessageType = HostMessage['type'];

// ---------------------------------------------------------------- webview -> host (validated)

/** Longest question the composer sends (the documents service limits a search query to 10,000). */
export const MAX_QUESTION_LENGTH = 100_000;
const MAX_CODE_LENGTH = 1_000_000;
/** The documents service takes search queries of at most 10,000 characters. */
export const MAX_SEARCH_QUERY_LENGTH = 10_000;
const id = z.string().min(1).max(200);

export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({ type: z.literal('send'), text: z.string().trim().min(1).max(MAX_QUESTION_LENGTH) }),
  z.strictObject({ type: z.literal('stop'), requestId: id.optional() }),
  /** Regenerates (or retries) an assistant message: only the last one in the conversation. */
  z.strictObject({ type: z.literal('regenerate'), messageId: id }),
  z.strictObject({ type: z.literal('newChat') }),
  z.strictObject({ type: z.literal('openConversation'), conversationId: id }),
  z.strictObject({ type: z.literal('deleteConversation'), conversationId: id }),
  z.strictObject({ type: z.literal('setModel'), model: id }),
  z.strictObject({
    type: z.literal('setOptions'),
    temperature: z.number().min(0).max(2).nullable(),
    maxCompletionTokens: z.number().int().min(1).max(1_000_000).nullable(),
  }),
  z.strictObject({ type: z.literal('setVectorStore'), storeId: id.nullable() }),
  /** Answers the last question again, searching for `query` (the edited "Searched for"). */
  z.strictObject({
    type: z.literal('searchAgain'),
    messageId: id,
    query: z.string().trim().min(1).max(MAX_SEARCH_QUERY_LENGTH),
  }),
  z.strictObject({ type: z.literal('refreshModels') }),
  z.strictObject({ type: z.literal('refreshStores') }),
  z.strictObject({ type: z.literal('removeContext'), index: z.number().int().min(0).max(1000) }),
  z.strictObject({ type: z.literal('openLink'), href: z.string().min(1).max(8192) }),
  z.strictObject({ type: z.literal('openSource'), messageId: id, number: z.number().int().min(1).max(1000) }),
  z.strictObject({ type: z.literal('copyCode'), code: z.string().max(MAX_CODE_LENGTH) }),
  z.strictObject({ type: z.literal('insertCode'), code: z.string().max(MAX_CODE_LENGTH) }),
  z.strictObject({
    type: z.literal('runAction'),
    action: z.enum(['setGatewayApiKey', 'setDocumentsToken', 'showOutput', 'chooseStore', 'attachFiles', 'useLanguageModel']),
  }),
]);

export type WebviewMessage = z.infer<typeof webviewMessageSchema>;
export type WebviewMessageType = WebviewMessage['type'];

/** The message when it is one of the protocol's, otherwise undefined (the caller ignores it). */
export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  const result = webviewMessageSchema.safeParse(value);
  return result.success ? result.data : undefined;
}

/** Only these schemes are ever opened from the chat (never `command:`, `file:`, `vscode:`). */
export function isOpenableLink(href: string): boolean {
  try {
    const url = new URL(href);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}
