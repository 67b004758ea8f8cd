/**
 * Streamed generation: OpenAI-style SSE (`data: {chunk}` … `data: [DONE]`, comments, multi-line
 * data, `event: error`) parsed with eventsource-parser, and NDJSON (one JSON object a line) for
 * servers that stream that way. Bytes are decoded as a stream, so a UTF-8 character split across
 * network chunks survives.
 */
import { createParser } from 'eventsource-parser';
import { DocChatError, ProtocolError, StreamError } from '../http/errors';
import { describeErrorBody } from '../http/responseErrors';
import { type ChatStreamPart, usageSchema } from './schemas';

export interface StreamSource {
  body: AsyncIterable<unknown> & { destroy(error?: Error): unknown; dump?(): Promise<void> };
  contentType: string;
  requestId?: string;
  idleTimeoutMs: number;
  /** The error for a stream that was idle too long. */
  idleError(): DocChatError;
  /** A stream longer than this many bytes is stopped with `tooLargeError()`. Default: no limit. */
  maxBytes?: number;
  tooLargeError?(): DocChatError;
  /** Maps a failure while reading (abort, socket closed, …) to the error to throw. */
  readError(raw: unknown): DocChatError;
  service: string;
}

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** One chunk of any of the shapes we accept, as a ChatStreamPart (undefined when it says nothing). */
export function normalizeChunk(chunk: Json): { part?: ChatStreamPart; done: boolean } {
  const choice = asObject(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined);
  const delta = asObject(choice?.delta);
  const message = asObject(choice?.message) ?? asObject(chunk.message);
  const content =
    text(delta?.content) ?? text(message?.content) ?? text(choice?.text) ?? text(chunk.response) ?? text(chunk.content) ?? '';
  const role = text(delta?.role) ?? text(message?.role);
  let finishReason: string | null | undefined = choice && 'finish_reason' in choice ? (text(choice.finish_reason) ?? null) : undefined;
  const ndjsonDone = chunk.done === true;
  if (ndjsonDone && !finishReason) finishReason = text(chunk.done_reason) ?? 'stop';
  const usageRaw = asObject(chunk.usage);
  const usage = usageRaw ? usageSchema.safeParse(usageRaw) : undefined;

  const part: ChatStreamPart = { content };
  if (role) part.role = role;
  if (finishReason !== undefined) part.finishReason = finishReason;
  if (usage?.success) part.usage = usage.data;
  if (typeof chunk.id === 'string') part.id = chunk.id;
  if (typeof chunk.model === 'string') part.model = chunk.model;
  const meaningful = content !== '' || role !== undefined || !!finishReason || part.usage !== undefined;
  return { part: meaningful ? part : undefined, done: ndjsonDone };
}

function errorFromPayload(data: string, source: StreamSource): StreamError {
  const info = describeErrorBody(data, 'application/json');
  return new StreamError(info.message ?? `The ${source.service} reported an error while streaming.`, {
    requestId: source.requestId,
    type: info.type,
    code: info.code,
    param: info.param,
  });
}

/** Reads the body with an idle timeout between chunks; yields decoded text. */
async function* decodedText(source: StreamSource): AsyncGenerator<string> {
  const iterator = source.body[Symbol.asyncIterator]();
  const decoder = new TextDecoder('utf-8');
  let size = 0;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(source.idleError()), source.idleTimeoutMs);
    });
    let result: IteratorResult<unknown>;
    try {
      result = await Promise.race([iterator.next(), idle]);
    } catch (error) {
      source.body.destroy();
      throw error instanceof DocChatError ? error : source.readError(error);
    } finally {
      clearTimeout(timer);
    }
    if (result.done) {
      const rest = decoder.decode();
      if (rest) yield rest;
      return;
    }
    const chunk = result.value;
    size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength;
    if (source.maxBytes !== undefined && size > source.maxBytes) {
      source.body.destroy();
      throw source.tooLargeError?.() ?? new ProtocolError(`The ${source.service} sent a stream larger than ${source.maxBytes} bytes.`);
    }
    yield typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
  }
}

/**
 * Parses a streamed completion into parts. Throws StreamError on `event: error` or an error
 * chunk, and when the stream ends without `[DONE]` or a finish reason (a truncated answer).
 */
export async function* parseCompletionStream(source: StreamSource): AsyncGenerator<ChatStreamPart> {
  const isSse = /text\/event-stream/i.test(source.contentType);
  const isNdjson = /ndjson|jsonl|jsonlines/i.test(source.contentType);
  let mode: 'sse' | 'ndjson' | undefined = isSse ? 'sse' : isNdjson ? 'ndjson' : undefined;
  const queue: ChatStreamPart[] = [];
  let finished = false;
  let complete = false;
  let failure: DocChatError | undefined;

  const handleJson = (data: string) => {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      failure ??= new ProtocolError(`The ${source.service} sent a stream chunk that is not JSON.`, { requestId: source.requestId });
      return;
    }
    const chunk = asObject(value);
    if (!chunk) return;
    if (chunk.error !== undefined && chunk.error !== null) {
      failure ??= errorFromPayload(data, source);
      return;
    }
    const { part, done } = normalizeChunk(chunk);
    if (part) {
      queue.push(part);
      if (part.finishReason) complete = true;
    }
    if (done) {
      complete = true;
      finished = true;
    }
  };

  const parser = createParser({
    onEvent(event) {
      if (finished || failure) return;
      if (event.event === 'error') {
        failure = errorFromPayload(event.data, source);
        return;
      }
      const data = event.data.trim();
      if (data === '[DONE]') {
        complete = true;
        finished = true;
        return;
      }
      if (data !== '') handleJson(data);
    },
  });

  let lineBuffer = '';
  const feedNdjson = (chunk: string, flush: boolean) => {
    lineBuffer += chunk;
    const lines = lineBuffer.split(/\r?\n/);
    lineBuffer = flush ? '' : (lines.pop() ?? '');
    for (const line of lines) {
      const trimmed = line.trim();
      if (finished || failure) return;
      if (trimmed === '' || trimmed === 'data: [DONE]' || trimmed === '[DONE]') continue;
      handleJson(trimmed.startsWith('data:') ? trimmed.slice(5).trim() : trimmed);
    }
  };

  try {
    for await (const chunk of decodedText(source)) {
      if (!mode) {
        const start = chunk.trimStart();
        if (start === '') continue;
        // Without a telling content type, a body that starts with a JSON object is NDJSON.
        mode = start.startsWith('{') ? 'ndjson' : 'sse';
      }
      if (mode === 'sse') parser.feed(chunk);
      else feedNdjson(chunk, false);
      // What arrived before an error is still shown.
      while (queue.length > 0) yield queue.shift()!;
      if (failure) throw failure;
      if (finished) return;
    }
    if (mode === 'sse') parser.reset({ consume: true });
    else feedNdjson('', true);
    while (queue.length > 0) yield queue.shift()!;
    if (failure) throw failure;
    if (!complete) {
      throw new StreamError(`The ${source.service} ended the stream before the answer was complete.`, {
        requestId: source.requestId,
      });
    }
  } finally {
    // Stopping early (or failing) must release the connection; after [DONE] the rest is drained
    // so the keep-alive socket can be reused.
    if (finished && source.body.dump) void source.body.dump().catch(() => undefined);
    else source.body.destroy();
  }
}
