/**
 * Request bodies of the gateway: the client's schemas (src/api/gateway/schemas.ts) with the
 * server's tolerance added — unknown fields pass (they are forwarded to an upstream unchanged),
 * null means "not set", message content may be OpenAI's list of parts — and the limits only the
 * server has (temperature up to 2, batch sizes, the inference endpoint's required project code).
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

export const MAX_EMBED_INPUTS = 2048;
export const MAX_QUERY_CHARS = 10_000;
const MAX_TEMPERATURE = 2;

/** A string, OpenAI's list of content parts (their `text` is read), or nothing. */
const messageContent = z
  .union([z.string(), z.array(z.unknown())], { error: 'Message content must be a string or a list of text parts.' })
  .nullish();

const serverMessages = z
  .array(chatMessageSchema.extend({ content: messageContent }), { error: 'messages is required: a list of {role, content}.' })
  .min(1, { error: 'messages must contain at least one message.' });

const temperature = chatRequestSchema.shape.temperature
  .unwrap()
  .max(MAX_TEMPERATURE, { error: `temperature must be a number from 0 to ${MAX_TEMPERATURE}.` })
  .optional();

const chatBody = nullableOptionals(
  chatRequestSchema.extend({ messages: serverMessages, temperature, max_tokens: inferenceRequestSchema.shape.max_tokens }),
).loose();

const inferenceBody = nullableOptionals(
  inferenceRequestSchema.extend({
    temperature,
    project_code: z.string({ error: 'project_code is required: "NA" or the project code of the specific customer.' }),
  }),
).loose();

const [oneText, manyTexts] = embedRequestSchema.shape.input.options;
const embedBody = nullableOptionals(
  embedRequestSchema.extend({
    input: z.union([oneText, manyTexts.max(MAX_EMBED_INPUTS, { error: `input may contain at most ${MAX_EMBED_INPUTS} texts.` })], {
      error: 'input must be a string or a list of strings.',
    }),
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
  maxTokens?: number;
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

export function checkChat(body: unknown): { model: string; messages: PlainMessage[] } & CommonOptions {
  const parsed = parseBody(chatBody, body);
  const messages = parsed.messages.map((m) => ({ role: m.role, content: textOf(m.content) }));
  return { model: parsed.model, messages, ...commonOptions(parsed) };
}

export function checkInference(body: unknown): { prompt: string; systemPrompt?: string; projectCode: string } & CommonOptions {
  const parsed = parseBody(inferenceBody, body);
  return {
    prompt: parsed.prompt,
    systemPrompt: parsed.system_prompt ?? undefined,
    projectCode: parsed.project_code,
    ...commonOptions(parsed),
  };
}

export function checkEmbed(body: unknown): { model: string; texts: string[]; dimensions?: number } {
  const parsed = parseBody(embedBody, body);
  return {
    model: parsed.model,
    texts: typeof parsed.input === 'string' ? [parsed.input] : parsed.input,
    dimensions: parsed.dimensions ?? undefined,
  };
}

export const checkSkillshare = (body: unknown): string => parseBody(skillshareBody, body).query;
export const checkCrawl = (body: unknown): string[] => parseBody(crawlBody, body).urls;
export const checkWebSearch = (body: unknown): void => void parseBody(webSearchBody, body);
export const checkResearch = (body: unknown): void => void parseBody(researchBody, body);
