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
import type {
  ChatErrorInfo,
  ChatMessage,
  ChatSource,
  ContextItem,
  Conversation,
  ConversationOptions,
  NextStep,
  TokenUsage,
  ToolProgress,
} from './conversation';

// ---------------------------------------------------------------- shared data

export { NEXT_STEPS } from './conversation';
export type {
  AnswerStatus,
  AssistantMessage,
  ChatErrorInfo,
  ChatErrorKind,
  ChatMessage,
  ChatSource,
  ChatToolName,
  ContextItem,
  Conversation,
  ConversationOptions,
  ErrorAction,
  NextStep,
  PassageSource,
  SelectionSource,
  SourceRange,
  TokenUsage,
  ToolProgress,
  UserMessage,
  WebPageSource,
} from './conversation';

export interface ConversationSummary {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  /** How many questions it holds: with the start time, it tells apart conversations with the same title. */
  questions: number;
}

export interface ModelOption {
  id: string;
  /** `legacy`: only reachable through the deprecated inference endpoint. */
  kind: 'completion' | 'legacy';
  /** Legacy models: when the inference endpoint retires. */
  retirement?: string;
  /** Why the model cannot be used this session (its server refused it for chat, or does not answer). */
  unavailable?: string;
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
  /** Every store is listed: a conversation's store that is not in it was deleted. */
  complete?: boolean;
  error?: string;
}

/**
 * `connecting`: the question waits for the connection DocChat is making, then is asked;
 * `thinking`: a reasoning model streams its reasoning, which is not shown, before its answer.
 */
export type StreamPhase = 'connecting' | 'searching' | 'thinking' | 'generating';

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
      /** False when the gateway has no web tools (Local mode): `/web` and the others are not offered. */
      webTools?: boolean;
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
  /** Local mode: starts the local backend again when it stopped, then retries that answer. */
  z.strictObject({ type: z.literal('restartBackend'), messageId: id }),
  /** Opens the search with the words that answer searched for, in the stores it searched. */
  z.strictObject({ type: z.literal('searchDocuments'), messageId: id }),
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
  /** `citation`: which of the answer's citations of the source was clicked (0 = its first); none from the sources list. */
  z.strictObject({
    type: z.literal('openSource'),
    messageId: id,
    number: z.number().int().min(1).max(1000),
    citation: z.number().int().min(0).max(10_000).optional(),
  }),
  z.strictObject({ type: z.literal('copyCode'), code: z.string().max(MAX_CODE_LENGTH) }),
  z.strictObject({ type: z.literal('insertCode'), code: z.string().max(MAX_CODE_LENGTH) }),
  z.strictObject({
    type: z.literal('runAction'),
    action: z.enum([
      'setGatewayApiKey',
      'setDocumentsToken',
      'openGatewaySettings',
      'showOutput',
      'chooseStore',
      'attachFiles',
      'useLanguageModel',
    ]),
  }),
]);

export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/** The message when it is one of the protocol's, otherwise undefined (the caller ignores it). */
export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  const result = webviewMessageSchema.safeParse(value);
  return result.success ? result.data : undefined;
}
