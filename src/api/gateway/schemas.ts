/**
 * Wire shapes of the language-model gateway: types, tolerant response parsing, strict request
 * checks. Shapes the document does not show follow OpenAI (see docs/api-assumptions.md).
 */
import * as z from 'zod';
import { normalizeLastError } from '../documents/schemas';
import { MAX_CRAWL_URLS } from './limits';

export {
  COMPLETION_MODELS,
  EMBEDDING_MODELS,
  INFERENCE_RETIREMENT,
  LEGACY_INFERENCE_MODELS,
  LOCAL_CHAT_MODEL,
  NO_PROJECT_CODE,
} from './models';

export const GATEWAY_OPERATIONS = [
  'chatCompletion',
  'listCompletionModels',
  'listEmbeddingModels',
  'inference',
  'embed',
  'skillshare',
  'webCrawl',
  'webSearch',
  'startResearch',
  'researchStatus',
] as const;
export type GatewayOperation = (typeof GATEWAY_OPERATIONS)[number];

/** Gateway rate limits are not shown: no client-side limit unless configured. */
export const GATEWAY_RATE_LIMITS: Partial<Record<GatewayOperation, number>> = {};

export const RESEARCH_TERMINAL_STATUSES: readonly string[] = ['completed', 'failed', 'cancelled'];

// ---------------------------------------------------------------- requests (strict)

const nonEmpty = (what: string) =>
  z
    .string({
      error: (issue) => (issue.input === undefined || issue.input === null ? `${what} is required.` : `${what} must be a string.`),
    })
    .min(1, { error: `${what} must not be empty.` });
const positiveInt = (what: string) =>
  z
    .number({ error: `${what} must be a number.` })
    .int({ error: `${what} must be a whole number.` })
    .min(1, { error: `${what} must be at least 1.` });
const temperature = z.number({ error: 'temperature must be a number.' }).min(0, { error: 'temperature must be at least 0.' }).optional();

export const chatMessageSchema = z.looseObject({
  /** `system` and `user` are shown; `assistant` and others pass through. */
  role: nonEmpty('role'),
  content: z.string({ error: 'Message content must be a string.' }),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

export const responseFormatSchema = z.looseObject({
  /** `text` is shown; `json_schema` (and `json_object`) follow OpenAI. */
  type: nonEmpty('response_format.type'),
  json_schema: z
    .looseObject({
      name: nonEmpty('json_schema.name'),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().optional(),
    })
    .optional(),
});
export type ResponseFormat = z.infer<typeof responseFormatSchema>;

export const chatRequestSchema = z.strictObject({
  model: nonEmpty('model'),
  messages: z.array(chatMessageSchema).min(1, { error: 'messages must contain at least one message.' }),
  max_completion_tokens: positiveInt('max_completion_tokens').optional(),
  response_format: responseFormatSchema.optional(),
  temperature,
  stream: z.boolean().optional(),
  /** Tools the model may call, in the chat-completions format the gateway follows (OpenAI's). */
  tools: z
    .array(z.looseObject({ type: nonEmpty('tools.type'), function: z.looseObject({ name: nonEmpty('tools.function.name') }) }))
    .optional(),
  tool_choice: z.union([z.string(), z.looseObject({})]).optional(),
});
export type ChatRequest = z.input<typeof chatRequestSchema>;

export const inferenceRequestSchema = z.strictObject({
  prompt: z.string({ error: 'prompt must be a string.' }),
  /** Filled from the client's project code when omitted; blank means `NA`. */
  project_code: z.string().optional(),
  system_prompt: z.string().optional(),
  temperature,
  max_tokens: positiveInt('max_tokens').optional(),
  max_completion_tokens: positiveInt('max_completion_tokens').optional(),
  response_format: responseFormatSchema.optional(),
  stream: z.boolean().optional(),
});
export type InferenceRequest = z.input<typeof inferenceRequestSchema>;

/** A text to embed: an empty or blank one has no meaning to measure (OpenAI refuses an empty one too). */
const embedText = z
  .string({ error: 'input must be a string or a list of strings.' })
  .refine((text) => text.trim().length > 0, { error: 'input must not hold an empty or blank text.' });

export const embedRequestSchema = z.strictObject({
  model: nonEmpty('model'),
  input: z.union([embedText, z.array(embedText).min(1, { error: 'input must contain at least one text.' })], {
    error: 'input must be a string or a list of strings.',
  }),
  dimensions: positiveInt('dimensions').optional(),
});
export type EmbedRequest = z.input<typeof embedRequestSchema>;

export const skillshareRequestSchema = z.strictObject({ query: nonEmpty('query') });

export { MAX_CRAWL_URLS };

export const webCrawlRequestSchema = z.strictObject({
  urls: z
    .array(
      z.url({ protocol: /^https?$/, error: (issue) => `Only absolute http(s) URLs can be crawled (got ${JSON.stringify(issue.input)}).` }),
      { error: 'urls is required: a list of http(s) URLs.' },
    )
    .min(1, { error: 'urls must contain at least one URL.' })
    .max(MAX_CRAWL_URLS, { error: `At most ${MAX_CRAWL_URLS} URLs per request.` }),
});

export const webSearchRequestSchema = z.strictObject({
  query: nonEmpty('query'),
  max_results: positiveInt('max_results').optional(),
  filters: z
    .strictObject({
      include_domains: z.array(z.string()).optional(),
      exclude_domains: z.array(z.string()).optional(),
    })
    .optional(),
});
export type WebSearchRequest = z.input<typeof webSearchRequestSchema>;

export const researchRequestSchema = z.strictObject({ query: nonEmpty('query') });

// ---------------------------------------------------------------- responses (tolerant)

export const usageSchema = z.looseObject({
  prompt_tokens: z
    .number()
    .nullish()
    .transform((v) => v ?? 0),
  completion_tokens: z
    .number()
    .nullish()
    .transform((v) => v ?? 0),
  total_tokens: z
    .number()
    .nullish()
    .transform((v) => v ?? 0),
});
export type Usage = z.infer<typeof usageSchema>;

const maybeString = z.string().nullish();

export const chatChoiceSchema = z.looseObject({
  index: z.number().optional(),
  finish_reason: maybeString,
  message: z.looseObject({ role: z.string().optional(), content: maybeString }).optional(),
  delta: z.looseObject({ role: z.string().optional(), content: maybeString }).optional(),
  /** Legacy completions put the text here. */
  text: maybeString,
});

export const chatCompletionSchema = z.looseObject({
  id: z.string().optional(),
  object: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z.array(chatChoiceSchema),
  usage: usageSchema.nullish(),
});
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

/** A piece of a tool call: the first names it (`id`, `name`), the next ones add to its `arguments` (JSON text). */
export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/** One streamed delta, normalised from SSE chunks and NDJSON lines alike. */
export interface ChatStreamPart {
  content: string;
  /**
   * What a reasoning model streams before its answer (`reasoning_content` of llama.cpp, vLLM and
   * DeepSeek, `reasoning` of Ollama's and OpenRouter's OpenAI API, `thinking` of Ollama's own):
   * never part of the answer; the chat says "Thinking…" while it arrives.
   */
  reasoning?: string;
  toolCalls?: ToolCallDelta[];
  role?: string;
  finishReason?: string | null;
  usage?: Usage;
  id?: string;
  model?: string;
}

export const inferenceResponseSchema = z.looseObject({
  model: z.string().optional(),
  response: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  usage: usageSchema.nullish(),
});
export type InferenceResponse = z.infer<typeof inferenceResponseSchema>;

export interface ModelInfo {
  id: string;
  [key: string]: unknown;
}

export const embeddingResponseSchema = z.looseObject({
  object: z.string().optional(),
  data: z.array(
    z.looseObject({
      object: z.string().optional(),
      index: z.number().optional(),
      embedding: z.array(z.number()),
    }),
  ),
  model: z.string().optional(),
  usage: z.looseObject({ prompt_tokens: z.number().optional(), total_tokens: z.number().optional() }).nullish(),
});
export type EmbeddingResponse = z.infer<typeof embeddingResponseSchema>;

const stringList = z.preprocess((v) => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []), z.array(z.string()));

export const skillResultSchema = z.looseObject({
  name: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  information: stringList,
  skillshare_link: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  top_match_terms: stringList,
});
export type SkillResult = z.infer<typeof skillResultSchema>;

export const webCrawlResponseSchema = z.looseObject({
  results: z.array(
    z.looseObject({
      url: z.string(),
      title: z.string().nullish(),
      content: z
        .string()
        .nullish()
        .transform((v) => v ?? ''),
      error: z.preprocess(normalizeLastError, z.string().nullable()),
    }),
  ),
});
export type WebCrawlResponse = z.infer<typeof webCrawlResponseSchema>;

export const webSearchResponseSchema = z.looseObject({
  results: z.array(
    z.looseObject({
      title: z
        .string()
        .nullish()
        .transform((v) => v ?? ''),
      url: z.string(),
      content: z
        .string()
        .nullish()
        .transform((v) => v ?? ''),
      score: z.number().nullish(),
    }),
  ),
});
export type WebSearchResponse = z.infer<typeof webSearchResponseSchema>;

export const researchTaskSchema = z.looseObject({
  id: z.string(),
  object: z.string().optional(),
  /** `in_progress`, `completed`, `failed`, `cancelled`, or whatever else the service says. */
  status: z
    .string()
    .nullish()
    .transform((v) => v ?? 'unknown'),
  created_at: z.number().optional(),
  progress: z.number().nullish(),
  message: z.string().nullish(),
  result: z
    .looseObject({
      content: z
        .string()
        .nullish()
        .transform((v) => v ?? ''),
      sources: z
        .array(z.looseObject({ url: z.string(), title: z.string().nullish() }))
        .nullish()
        .transform((v) => v ?? []),
    })
    .nullish(),
  error: z.preprocess(normalizeLastError, z.string().nullable()),
});
export type ResearchTask = z.infer<typeof researchTaskSchema>;
