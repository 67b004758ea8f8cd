/**
 * Request bodies of the gateway: the client's schemas (src/api/gateway/schemas.ts) with the
 * server's tolerance added — unknown fields pass (they are forwarded to an upstream unchanged),
 * null means "not set", message content may be OpenAI's list of parts — and the limits only the
 * server has (batch sizes, the inference endpoint's required project code, what the local model
 * can do). The temperature is checked as the client checks it, not negative: its range is the
 * model's (the contract: "often 0.0 to 2.0"), so an upstream model decides the rest.
 */
import { z } from 'zod';
import {
  chatMessageSchema,
  chatRequestSchema,
  embedRequestSchema,
  inferenceRequestSchema,
  researchRequestSchema,
  skillshareRequestSchema,
  webCrawlRequestSchema,
  webSearchRequestSchema,
} from '../../api/gateway/schemas';
import { nullableOptionals, parseBody } from '../http/requestBody';
import type { PlainMessage } from './extractive';
import { LOCAL_CHAT_MODEL } from './models';

export const MAX_EMBED_INPUTS = 2048;
export const MAX_QUERY_CHARS = 10_000;
/** Stop sequences a chat request may give (OpenAI's limit). */
export const MAX_STOP_SEQUENCES = 4;

/** A string, OpenAI's list of content parts (their `text` is read), or nothing. */
const messageContent = z
  .union([z.string(), z.array(z.unknown())], { error: 'Message content must be a string or a list of text parts.' })
  .nullish();

const serverMessages = z
  .array(chatMessageSchema.extend({ content: messageContent }), { error: 'messages is required: a list of {role, content}.' })
  .min(1, { error: 'messages must contain at least one message.' });

const stopSequence = z
  .string({ error: 'stop must be a string or a list of strings.' })
  .min(1, { error: 'A stop sequence must not be empty.' });

const chatBody = nullableOptionals(
  chatRequestSchema.extend({
    messages: serverMessages,
    max_tokens: inferenceRequestSchema.shape.max_tokens,
    stream_options: z
      .looseObject({ include_usage: z.boolean({ error: 'stream_options.include_usage must be true or false.' }).nullish() })
      .optional(),
  }),
).loose();

/**
 * `n` and `stop` as `local-extractive` takes them (OpenAI's limits); a request for an upstream
 * model forwards them as sent, for its server to judge (llama.cpp or vLLM take more stop sequences).
 */
const localOptions = z.looseObject({
  /** How many answers to generate: `local-extractive` answers once (see respondLocal). */
  n: z
    .number({ error: 'n must be a number.' })
    .int({ error: 'n must be a whole number.' })
    .min(1, { error: 'n must be at least 1.' })
    .nullish(),
  stop: z
    .union(
      [stopSequence, z.array(stopSequence).max(MAX_STOP_SEQUENCES, { error: `stop may hold at most ${MAX_STOP_SEQUENCES} sequences.` })],
      { error: 'stop must be a string or a list of strings.' },
    )
    .nullish(),
});

const inferenceBody = nullableOptionals(
  inferenceRequestSchema.extend({
    project_code: z.string({ error: 'project_code is required: "NA" or the project code of the specific customer.' }),
  }),
).loose();

/** A text to embed: the client's check (an empty or blank text has no meaning to measure). */
const embedText = embedRequestSchema.shape.input.options[0];
const embedBody = nullableOptionals(
  embedRequestSchema.extend({
    input: z.union(
      [
        embedText,
        z
          .array(embedText)
          .min(1, { error: 'input must contain at least one text.' })
          .max(MAX_EMBED_INPUTS, { error: `input may contain at most ${MAX_EMBED_INPUTS} texts.` }),
      ],
      { error: 'input must be a string or a list of strings (lists of token ids are not accepted).' },
    ),
    /** OpenAI's: numbers, or each vector's little-endian float32 bytes in base64 (what the openai SDK asks for by default). */
    encoding_format: z.enum(['float', 'base64'], { error: 'encoding_format must be "float" or "base64".' }).optional(),
  }),
).loose();

const skillshareBody = skillshareRequestSchema
  .extend({
    query: skillshareRequestSchema.shape.query
      .max(MAX_QUERY_CHARS, { error: `query may be at most ${MAX_QUERY_CHARS} characters long.` })
      .refine((query) => query.trim().length > 0, { error: 'query must describe the person you are looking for.' }),
  })
  .loose();

const crawlBody = webCrawlRequestSchema.loose();

const webSearchBody = nullableOptionals(webSearchRequestSchema).loose();
const researchBody = researchRequestSchema.loose();

export interface CommonOptions {
  stream: boolean;
  /** The most tokens the answer may have. */
  maxTokens?: number;
}

export interface ChatOptions extends CommonOptions {
  /** Sequences the answer ends before (OpenAI's `stop`). */
  stop: string[];
  /** Whether a stream ends with the usage chunk: unless the request says `include_usage: false`. */
  includeUsage: boolean;
  /** How many answers were asked for. */
  n: number;
}

function textOf(content: z.output<typeof messageContent>): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => {
      if (typeof part === 'string') return part;
      const text = part && typeof part === 'object' ? (part as { text?: unknown }).text : undefined;
      return typeof text === 'string' ? text : '';
    })
    .join('');
}

function commonOptions(body: {
  stream?: boolean | null;
  max_completion_tokens?: number | null;
  max_tokens?: number | null;
}): CommonOptions {
  return { stream: body.stream === true, maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined };
}

export function checkChat(body: unknown): { model: string; messages: PlainMessage[] } & ChatOptions {
  const parsed = parseBody(chatBody, body);
  const messages = parsed.messages.map((m) => ({ role: m.role, content: textOf(m.content) }));
  const local = parsed.model === LOCAL_CHAT_MODEL ? parseBody(localOptions, body) : { n: undefined, stop: undefined };
  const stop = local.stop ?? [];
  return {
    model: parsed.model,
    messages,
    ...commonOptions(parsed),
    stop: typeof stop === 'string' ? [stop] : stop,
    includeUsage: parsed.stream_options?.include_usage !== false,
    n: local.n ?? 1,
  };
}

export function checkInference(body: unknown): {
  prompt: string;
  systemPrompt?: string;
  projectCode: string;
  /** The contract's `max_tokens`: a limit on prompt plus completion tokens. */
  maxTotalTokens?: number;
} & CommonOptions {
  const parsed = parseBody(inferenceBody, body);
  return {
    prompt: parsed.prompt,
    systemPrompt: parsed.system_prompt ?? undefined,
    projectCode: parsed.project_code,
    stream: parsed.stream === true,
    maxTokens: parsed.max_completion_tokens ?? undefined,
    maxTotalTokens: parsed.max_tokens ?? undefined,
  };
}

export function checkEmbed(body: unknown): { model: string; texts: string[]; dimensions?: number; base64: boolean } {
  const parsed = parseBody(embedBody, body);
  return {
    model: parsed.model,
    texts: typeof parsed.input === 'string' ? [parsed.input] : parsed.input,
    dimensions: parsed.dimensions ?? undefined,
    base64: parsed.encoding_format === 'base64',
  };
}

export const checkSkillshare = (body: unknown): string => parseBody(skillshareBody, body).query;
export const checkCrawl = (body: unknown): string[] => parseBody(crawlBody, body).urls;
export const checkWebSearch = (body: unknown): void => void parseBody(webSearchBody, body);
export const checkResearch = (body: unknown): void => void parseBody(researchBody, body);
