/**
 * Chat completions (both paths) and the deprecated inference endpoint: request checks, the local
 * extractive model, and forwarding to the upstream — whole JSON or an SSE stream.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import { ApiError, invalid } from '../http/errors';
import { sendJson } from '../http/respond';
import { answer, countTokens, type PlainMessage } from './extractive';
import { LOCAL_CHAT_MODEL } from './models';
import { endEventStream, sendErrorEvent, sendEvent, startEventStream } from './sse';
import { chunksOf, describe, type Upstream } from './upstream';

export interface ChatInput {
  model: string;
  messages: PlainMessage[];
  stream: boolean;
  /** The most tokens the answer may have. */
  maxTokens?: number;
  /** The inference endpoint's `max_tokens`: the most tokens of prompt and answer together. */
  maxTotalTokens?: number;
  /** Sequences the answer ends before. */
  stop?: readonly string[];
  /** False when a streamed request asked for no usage chunk. */
  includeUsage?: boolean;
  /** How many answers were asked for. */
  n?: number;
  /** The request as received, forwarded to an upstream unchanged. */
  body: Record<string, unknown>;
}

export type ResponseShape = 'chat' | 'inference';

/** Pause between streamed pieces of the local model, so a UI shows the answer arriving. */
const LOCAL_STREAM_PIECE_DELAY_MS = 8;

function truncate(text: string, maxTokens: number | undefined): { text: string; finish: 'stop' | 'length' } {
  if (maxTokens === undefined || countTokens(text) <= maxTokens) return { text, finish: 'stop' };
  return { text: text.slice(0, maxTokens * 4), finish: 'length' };
}

/** The text before the first of the stop sequences (the sequence itself is not returned, as OpenAI does). */
export function cutAtStop(text: string, stop: readonly string[] = []): string {
  let end = text.length;
  for (const sequence of stop) {
    const at = text.indexOf(sequence);
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}

const promptTokens = (messages: readonly PlainMessage[]) => messages.reduce((n, m) => n + countTokens(m.content) + 4, 0);

function usageOf(messages: PlainMessage[], completion: string) {
  const prompt = promptTokens(messages);
  const completionTokens = countTokens(completion);
  return { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens };
}

/**
 * The answer's token budget: `max_completion_tokens` (or chat's `max_tokens`), and what the
 * inference endpoint's `max_tokens` leaves after the prompt. A prompt that alone reaches that
 * limit is refused, naming both numbers.
 */
export function answerBudget(input: Pick<ChatInput, 'messages' | 'maxTokens' | 'maxTotalTokens'>): number | undefined {
  if (input.maxTotalTokens === undefined) return input.maxTokens;
  const prompt = promptTokens(input.messages);
  const left = input.maxTotalTokens - prompt;
  if (left < 1) {
    throw invalid(
      'max_tokens',
      `max_tokens (${input.maxTotalTokens}) limits the prompt and the answer together, and the prompt alone is about ${prompt} tokens: raise max_tokens or shorten the prompt.`,
      'context_length_exceeded',
    );
  }
  return Math.min(left, input.maxTokens ?? left);
}

export function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}

function checkLocalFormat(body: Record<string, unknown>): void {
  const type = (body.response_format as { type?: string } | undefined)?.type;
  if (type && type !== 'text') {
    throw invalid(
      'response_format',
      `${LOCAL_CHAT_MODEL} answers in plain text only; response_format type "${type}" is not supported.`,
      'unsupported_response_format',
    );
  }
}

/** Words with their following space, three at a time; joined they give back the text. */
function pieces(text: string): string[] {
  const words = text.split(/(?<=\s)(?=\S)/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(''));
  return out;
}

function closed(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded;
}

export async function respondLocal(
  res: ServerResponse,
  input: ChatInput,
  shape: ResponseShape,
  headers: Record<string, string>,
): Promise<void> {
  checkLocalFormat(input.body);
  if ((input.n ?? 1) > 1) {
    throw invalid('n', `${LOCAL_CHAT_MODEL} gives one answer a request: n must be 1 (got ${input.n}).`, 'unsupported_value');
  }
  const { text, finish } = truncate(cutAtStop(answer(input.messages), input.stop), answerBudget(input));
  const usage = usageOf(input.messages, text);
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  if (!input.stream) {
    if (shape === 'inference') {
      sendJson(res, 200, { model: LOCAL_CHAT_MODEL, response: text, usage }, headers);
      return;
    }
    sendJson(
      res,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model: LOCAL_CHAT_MODEL,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finish, logprobs: null }],
        usage,
        system_fingerprint: LOCAL_CHAT_MODEL,
      },
      headers,
    );
    return;
  }
  const chunk = (delta: Record<string, string>, finishReason: string | null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: LOCAL_CHAT_MODEL,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  startEventStream(res, headers);
  sendEvent(res, chunk({ role: 'assistant', content: '' }, null));
  for (const piece of pieces(text)) {
    if (closed(res)) return;
    sendEvent(res, chunk({ content: piece }, null));
    await new Promise((resolve) => setTimeout(resolve, LOCAL_STREAM_PIECE_DELAY_MS));
  }
  if (closed(res)) return;
  sendEvent(res, chunk({}, finish));
  if (input.includeUsage !== false) {
    sendEvent(res, { id, object: 'chat.completion.chunk', created, model: LOCAL_CHAT_MODEL, choices: [], usage });
  }
  endEventStream(res);
}

/** Forwards to the upstream's /chat/completions; an inference request is rewritten into one. */
export async function respondUpstream(
  res: ServerResponse,
  upstream: Upstream,
  input: ChatInput,
  shape: ResponseShape,
  headers: Record<string, string>,
): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  let body: Record<string, unknown>;
  if (shape === 'chat') {
    body = { ...input.body };
  } else {
    // The inference endpoint's max_tokens counts the prompt too; chat completions' counts the answer only.
    const budget = answerBudget(input);
    body = {
      model: input.model,
      messages: input.messages,
      ...pick(input.body, ['temperature', 'response_format']),
      ...(budget === undefined ? {} : { max_completion_tokens: budget }),
    };
  }
  if (input.stream) {
    body.stream = true;
    if (input.includeUsage !== false) body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
  } else {
    delete body.stream;
  }
  const response = await upstream.request('/chat/completions', { body, signal: abort.signal });
  if (!response.ok) throw await upstream.failure(response);

  if (!input.stream) {
    const json = (await response.json()) as { choices?: { message?: { content?: string } }[]; usage?: unknown; model?: string };
    if (shape === 'inference') {
      sendJson(
        res,
        200,
        { model: json.model ?? input.model, response: json.choices?.[0]?.message?.content ?? '', usage: json.usage ?? null },
        headers,
      );
    } else {
      sendJson(res, 200, json, headers);
    }
    return;
  }

  startEventStream(res, headers);
  let sawUsage = false;
  let done = false;
  let completion = '';
  let lastChunk: { id?: string; created?: number; model?: string } = {};
  const parser = createParser({
    onEvent(event) {
      if (done || closed(res)) return;
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      if (event.event === 'error') {
        done = true;
        sendErrorEvent(
          res,
          new ApiError({ type: 'server_error', message: `Upstream server: ${errorText(event.data)}`, code: 'upstream_error', status: 502 }),
        );
        return;
      }
      try {
        const chunk = JSON.parse(event.data) as {
          id?: string;
          created?: number;
          model?: string;
          usage?: unknown;
          choices?: { delta?: { content?: string } }[];
          error?: unknown;
        };
        if (chunk.error) {
          done = true;
          sendErrorEvent(
            res,
            new ApiError({
              type: 'server_error',
              message: `Upstream server: ${errorText(event.data)}`,
              code: 'upstream_error',
              status: 502,
            }),
          );
          return;
        }
        if (chunk.usage) sawUsage = true;
        for (const choice of chunk.choices ?? []) completion += choice.delta?.content ?? '';
        lastChunk = chunk;
        // A server that sends usage although the client asked for none: its usage-only chunk is left out.
        if (chunk.usage && input.includeUsage === false && (chunk.choices ?? []).length === 0) return;
      } catch {
        // Not JSON: forward as it is, the client decides.
      }
      sendEvent(res, event.data);
    },
    // llama.cpp reports a failure inside a 200 stream as an `error: {…}` line (a field SSE does
    // not define) followed by `data: [DONE]`: forwarded as the error it is, not an empty answer.
    onError(error) {
      if (done || closed(res) || error.type !== 'unknown-field' || error.field !== 'error') return;
      done = true;
      sendErrorEvent(
        res,
        new ApiError({
          type: 'server_error',
          message: `Upstream server: ${errorText(error.value ?? '')}`,
          code: 'upstream_error',
          status: 502,
        }),
      );
    },
  });
  try {
    const decoder = new TextDecoder();
    for await (const part of chunksOf(response.body)) {
      parser.feed(decoder.decode(part, { stream: true }));
      if (done || closed(res)) break;
    }
  } catch (error) {
    if (closed(res)) return;
    sendErrorEvent(
      res,
      new ApiError({
        type: 'server_error',
        message: `The upstream stream broke off: ${describe(error)}`,
        code: 'upstream_stream_error',
        status: 502,
      }),
    );
    return;
  }
  if (closed(res)) return;
  if (!sawUsage && input.includeUsage !== false) {
    sendEvent(res, {
      id: lastChunk.id ?? completionId(),
      object: 'chat.completion.chunk',
      created: lastChunk.created ?? Math.floor(Date.now() / 1000),
      model: lastChunk.model ?? input.model,
      choices: [],
      usage: { ...usageOf(input.messages, completion), estimated: true },
    });
  }
  endEventStream(res);
}

function pick(body: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (body[key] !== undefined) out[key] = body[key];
  return out;
}

function errorText(data: string): string {
  try {
    const body = JSON.parse(data) as { error?: { message?: string } | string; message?: string };
    return (typeof body.error === 'string' ? body.error : body.error?.message) ?? body.message ?? data;
  } catch {
    return data;
  }
}
