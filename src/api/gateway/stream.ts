/**
 * Streamed generation: OpenAI-style SSE (`data: {chunk}` … `data: [DONE]`, comments, multi-line
 * data, `event: error`, llama.cpp's `error: {…}` line) parsed with eventsource-parser, and NDJSON
 * (one JSON object a line) for servers that stream that way. Bytes are decoded as a stream, so a UTF-8 character split across
 * network chunks survives.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { DocChatError, ProtocolError, StreamError } from '../http/errors';
import { describeErrorBody } from '../http/responseErrors';
import { type ChatStreamPart, type ToolCallDelta, usageSchema } from './schemas';

export interface StreamSource {
  body: AsyncIterable<unknown> & {
    destroy(error?: Error): unknown;
    dump?(options?: { limit?: number; signal?: AbortSignal }): Promise<unknown>;
  };
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

/** After `[DONE]`, at most this much more is read to keep the connection; a longer rest closes it. */
const DRAIN_AFTER_DONE_BYTES = 128 * 1024;

function asObject(value: unknown): Json | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Message content: a string, or a list of parts whose `text` is read (Mistral, OpenAI's content parts). */
function contentText(value: unknown): string | undefined {
  if (!Array.isArray(value)) return text(value);
  return value.map((part) => text(part) ?? text(asObject(part)?.text) ?? '').join('');
}

/** The tool calls of a delta or a whole message (`tool_calls` of the chat-completions format). */
export function toolCallDeltas(value: unknown): ToolCallDelta[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw, position): ToolCallDelta[] => {
    const call = asObject(raw);
    if (!call) return [];
    const fn = asObject(call.function);
    const args = fn?.arguments;
    return [
      {
        index: typeof call.index === 'number' ? call.index : position,
        ...(text(call.id) ? { id: text(call.id) } : {}),
        ...(text(fn?.name) ? { name: text(fn?.name) } : {}),
        ...(typeof args === 'string'
          ? { arguments: args }
          : args !== undefined && args !== null
            ? { arguments: JSON.stringify(args) }
            : {}),
      },
    ];
  });
}

/** One chunk of any of the shapes we accept, as a ChatStreamPart (undefined when it says nothing). */
export function normalizeChunk(chunk: Json): { part?: ChatStreamPart; done: boolean } {
  const choice = asObject(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined);
  const delta = asObject(choice?.delta);
  const message = asObject(choice?.message) ?? asObject(chunk.message);
  // A refusal (OpenAI's `refusal`, in place of content) is what the model said: shown as its answer.
  const content =
    (contentText(delta?.content) ??
      contentText(message?.content) ??
      text(choice?.text) ??
      text(chunk.response) ??
      contentText(chunk.content)) ||
    text(delta?.refusal) ||
    text(message?.refusal) ||
    '';
  const reasoning =
    text(delta?.reasoning_content) ||
    text(delta?.reasoning) ||
    text(message?.reasoning_content) ||
    text(message?.reasoning) ||
    text(message?.thinking);
  const role = text(delta?.role) ?? text(message?.role);
  let finishReason: string | null | undefined = choice && 'finish_reason' in choice ? (text(choice.finish_reason) ?? null) : undefined;
  const ndjsonDone = chunk.done === true;
  if (ndjsonDone && !finishReason) finishReason = text(chunk.done_reason) ?? 'stop';
  const usageRaw = asObject(chunk.usage);
  const usage = usageRaw ? usageSchema.safeParse(usageRaw) : undefined;

  const toolCalls = toolCallDeltas(delta?.tool_calls ?? message?.tool_calls);
  const part: ChatStreamPart = { content };
  if (reasoning) part.reasoning = reasoning;
  if (toolCalls.length) part.toolCalls = toolCalls;
  if (role) part.role = role;
  if (finishReason !== undefined) part.finishReason = finishReason;
  if (usage?.success) part.usage = usage.data;
  if (typeof chunk.id === 'string') part.id = chunk.id;
  if (typeof chunk.model === 'string') part.model = chunk.model;
  const meaningful =
    content !== '' || !!reasoning || toolCalls.length > 0 || role !== undefined || !!finishReason || part.usage !== undefined;
  return { part: meaningful ? part : undefined, done: ndjsonDone };
}

/**
 * A part that says nothing but text (`finishReason: null` is the usual "not yet"). Tool call
 * pieces are never merged: each carries its own index, id and piece of the arguments.
 */
function isTextOnly(part: ChatStreamPart): boolean {
  return (
    part.role === undefined &&
    !part.finishReason &&
    part.usage === undefined &&
    part.toolCalls === undefined &&
    part.reasoning === undefined
  );
}

/** A chunk that says it is an error: `{error: …}`, or `type`, `object` or `status` "error". */
function namesError(chunk: Json): boolean {
  return (
    (chunk.error !== undefined && chunk.error !== null) || chunk.type === 'error' || chunk.object === 'error' || chunk.status === 'error'
  );
}

/**
 * An error in a shape other than OpenAI's `{error: {...}}`: `{type: "error", message}`,
 * `{object: "error", …}` (vLLM), `{detail}` (FastAPI), or a bare `{message}` without any answer.
 */
function isErrorShape(chunk: Json): boolean {
  if (namesError(chunk)) return true;
  const answers =
    Array.isArray(chunk.choices) || asObject(chunk.message) !== undefined || 'response' in chunk || 'content' in chunk || 'done' in chunk;
  return !answers && (typeof chunk.message === 'string' || chunk.detail !== undefined || typeof chunk.error_description === 'string');
}

/**
 * A whole JSON answer (a server that ignored `stream: true`) as one part, or the error it
 * carries (`{"error": "model not found"}` with status 200 is Ollama's and LM Studio's way).
 */
export function wholeAnswerPart(value: unknown, source: Pick<StreamSource, 'service' | 'requestId'>): ChatStreamPart | undefined {
  const chunk = asObject(value);
  if (!chunk) return undefined;
  if (isErrorShape(chunk)) throw errorFromPayload(JSON.stringify(chunk), source);
  const { part } = normalizeChunk(chunk);
  // An answer with nothing in it (`{"response": ""}`) is an empty answer; anything else without text or tool calls is no answer.
  const answers = 'choices' in chunk || 'response' in chunk;
  if (!answers && (!part || (part.content === '' && !part.toolCalls))) return undefined;
  return { content: '', ...part, role: part?.role ?? 'assistant', finishReason: part?.finishReason || 'stop' };
}

function errorFromPayload(data: string, source: Pick<StreamSource, 'service' | 'requestId'>): StreamError {
  const info = describeErrorBody(data, 'application/json');
  return new StreamError(info.message ?? `The ${source.service} reported an error while streaming.`, {
    requestId: source.requestId,
    type: info.type,
    code: info.code,
    param: info.param,
  });
}

/**
 * Parses a streamed completion into parts. Throws StreamError on `event: error` or an error
 * chunk, and when the stream ends without `[DONE]` or a finish reason (a truncated answer).
 *
 * A hand-written iterator rather than async generators: a 5,000-chunk answer goes through
 * `next()` 5,000 times, and a generator per layer (plus a Promise and a timer per network read
 * for the idle timeout) cost more than the parsing itself. Parts already parsed are handed out
 * from a queue without touching the network; one idle timer is re-armed per read.
 */
export function parseCompletionStream(source: StreamSource): AsyncIterableIterator<ChatStreamPart> {
  return new CompletionStream(source);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class CompletionStream implements AsyncIterableIterator<ChatStreamPart> {
  private mode: 'sse' | 'ndjson' | undefined;
  private readonly queue: ChatStreamPart[] = [];
  private head = 0;
  /** `[DONE]` (or an NDJSON `done`) was seen: nothing after it is read. */
  private finished = false;
  /** A finish reason or `[DONE]` was seen: ending the stream now is not a truncation. */
  private complete = false;
  /** Set while the parser is handed the blank line a body ended without. */
  private flushing = false;
  private failure: DocChatError | undefined;
  /** Parts handed out, and events that were neither a part nor an error. */
  private parts = 0;
  private ununderstood = 0;
  /** The body ended (or was released); the queue may still hold parts. */
  private ended = false;
  private flushed = false;
  private closed = false;
  private iterator: AsyncIterator<unknown> | undefined;
  private readonly decoder = new TextDecoder('utf-8');
  private size = 0;
  private lineBuffer = '';
  private readonly parser: EventSourceParser;
  private idleTimer: NodeJS.Timeout | undefined;
  private reading = false;
  private idleFailure: DocChatError | undefined;
  private pending: Promise<IteratorResult<ChatStreamPart>> | undefined;

  constructor(private readonly source: StreamSource) {
    const type = source.contentType;
    this.mode = /text\/event-stream/i.test(type) ? 'sse' : /ndjson|jsonl|jsonlines/i.test(type) ? 'ndjson' : undefined;
    this.parser = createParser({
      onEvent: (event) => {
        if (this.finished || this.failure) return;
        if (event.event === 'error') {
          this.failure = errorFromPayload(event.data, source);
          return;
        }
        const data = event.data.trim();
        if (data === '[DONE]') {
          this.markDone();
          return;
        }
        if (data !== '') this.handleJson(data);
      },
      // llama.cpp's server reports a failure inside a 200 stream as an `error: {…}` line (a field
      // SSE does not define), then `data: [DONE]`: the answer failed, with that message.
      onError: (error) => {
        if (this.finished || this.failure || error.type !== 'unknown-field' || error.field !== 'error') return;
        this.failure = errorFromPayload(error.value ?? '', source);
      },
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ChatStreamPart>> {
    // for-await never overlaps calls, but a hand-driven caller may: keep them in order.
    if (this.pending) {
      return this.pending.then(
        () => this.next(),
        () => this.next(),
      );
    }
    if (this.head < this.queue.length) return Promise.resolve({ done: false, value: this.take() });
    if (this.closed) return Promise.resolve(DONE);
    try {
      // What arrived before an error is still shown, so the failure comes after the queue.
      if (this.failure) throw this.failure;
      if (this.ended || this.finished) {
        this.finish();
        return Promise.resolve(DONE);
      }
    } catch (error) {
      this.release();
      return Promise.reject(error);
    }
    const pending = this.fill().then(
      () => {
        this.pending = undefined;
        return this.next();
      },
      (error: unknown) => {
        this.pending = undefined;
        this.release();
        throw error;
      },
    );
    this.pending = pending;
    return pending;
  }

  /** Stopping early (a `break` in for-await) releases the connection. */
  return(): Promise<IteratorResult<ChatStreamPart>> {
    this.release();
    return Promise.resolve(DONE);
  }

  private take(): ChatStreamPart {
    const part = this.queue[this.head]!;
    this.queue[this.head++] = undefined as unknown as ChatStreamPart;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    return part;
  }

  /** At the end of the body: flushes the parsers and checks the answer was complete. */
  private finish(): void {
    if (!this.finished && !this.failure) {
      if (!this.flushed) {
        this.flushed = true;
        // A last event without its blank line (the body ended right after it) is still an event;
        // one cut in the middle (not JSON) is what a truncated stream leaves, not a protocol error.
        if (this.mode === 'sse') {
          this.flushing = true;
          this.parser.feed('\n\n');
          this.flushing = false;
        } else {
          this.flushing = true;
          this.feedNdjson('', true);
          this.flushing = false;
        }
      }
      if (this.head < this.queue.length || this.failure) return; // handed out by next()
      if (!this.complete) {
        this.failure = new StreamError(`The ${this.source.service} ended the stream before the answer was complete.`, {
          requestId: this.source.requestId,
        });
        throw this.failure;
      }
    }
    this.release();
  }

  /** Reads until at least one part, a failure or the end. */
  private async fill(): Promise<void> {
    const source = this.source;
    this.iterator ??= source.body[Symbol.asyncIterator]();
    while (this.head >= this.queue.length && !this.failure && !this.finished) {
      let result: IteratorResult<unknown>;
      this.armIdleTimer();
      try {
        result = await this.iterator.next();
      } catch (error) {
        source.body.destroy();
        if (!this.idleFailure && this.complete) {
          // The answer was whole (its finish reason came) when the connection broke: it stands.
          this.ended = true;
          if (this.head >= this.queue.length && !this.failure && !this.finished) this.finish();
          return;
        }
        throw this.idleFailure ?? (error instanceof DocChatError ? error : source.readError(error));
      } finally {
        this.reading = false;
      }
      if (this.idleFailure) throw this.idleFailure;
      if (result.done) {
        const rest = this.decoder.decode();
        if (rest) this.feed(rest);
        this.ended = true;
        if (this.head >= this.queue.length && !this.failure && !this.finished) this.finish();
        return;
      }
      const chunk = result.value;
      this.size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength;
      if (source.maxBytes !== undefined && this.size > source.maxBytes) {
        source.body.destroy();
        throw source.tooLargeError?.() ?? new ProtocolError(`The ${source.service} sent a stream larger than ${source.maxBytes} bytes.`);
      }
      this.feed(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk as Uint8Array, { stream: true }));
    }
  }

  /**
   * One timer for the whole stream, re-armed before each read. It only counts while a read is
   * waiting: a slow consumer between parts is not an idle server.
   */
  private armIdleTimer(): void {
    this.reading = true;
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => {
      if (!this.reading || this.closed) return;
      this.idleFailure = this.source.idleError();
      // Ends the pending read; fill() turns it into the idle error.
      this.source.body.destroy(this.idleFailure);
    }, this.source.idleTimeoutMs);
    // A stream its caller abandoned (no `return()`) must not keep the process alive.
    this.idleTimer.unref();
  }

  private feed(chunk: string): void {
    if (!this.mode) {
      const start = chunk.trimStart();
      if (start === '') return;
      // Without a telling content type, a body that starts with a JSON object is NDJSON.
      this.mode = start.startsWith('{') ? 'ndjson' : 'sse';
    }
    if (this.mode === 'sse') this.parser.feed(chunk);
    else this.feedNdjson(chunk, false);
  }

  private feedNdjson(chunk: string, flush: boolean): void {
    this.lineBuffer += chunk;
    const lines = this.lineBuffer.split(/\r?\n/);
    this.lineBuffer = flush ? '' : (lines.pop() ?? '');
    for (const line of lines) {
      const trimmed = line.trim();
      if (this.finished || this.failure) return;
      if (trimmed === '' || trimmed === 'data: [DONE]' || trimmed === '[DONE]') continue;
      this.handleJson(trimmed.startsWith('data:') ? trimmed.slice(5).trim() : trimmed);
    }
  }

  private handleJson(data: string): void {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      if (this.flushing) return;
      this.failure ??= new ProtocolError(`The ${this.source.service} sent a stream chunk that is not JSON.`, {
        requestId: this.source.requestId,
      });
      return;
    }
    if (typeof value === 'string') {
      // A bare JSON string in a stream of chunks is a server's complaint, not an answer.
      this.failure ??= errorFromPayload(data, this.source);
      return;
    }
    if (this.appendText(value)) return;
    const chunk = asObject(value);
    if (!chunk) {
      this.failure ??= new ProtocolError(`The ${this.source.service} sent a stream event DocChat does not understand.`, {
        requestId: this.source.requestId,
      });
      return;
    }
    if (isErrorShape(chunk)) {
      this.failure ??= errorFromPayload(data, this.source);
      return;
    }
    const { part, done } = normalizeChunk(chunk);
    if (part) {
      this.parts++;
      if (!this.appendToLast(part)) this.queue.push(part);
      if (part.finishReason) this.complete = true;
    } else if (!done) {
      this.ununderstood++;
    }
    if (done) this.markDone();
  }

  /**
   * Text that arrived in the same network read as the part before it, and still waits in the
   * queue, joins that part: the consumer takes one part per read instead of one per event (a
   * promise turn and, in the extension, a message to the webview each), and sees the same text.
   * Parts that carry anything besides text (a role, a finish reason, usage) stay parts of their own.
   */
  private appendToLast(part: ChatStreamPart): boolean {
    if (this.head >= this.queue.length || !isTextOnly(part)) return false;
    const last = this.queue[this.queue.length - 1]!;
    if (!isTextOnly(last) || last.id !== part.id || last.model !== part.model) return false;
    last.content += part.content;
    return true;
  }

  /**
   * The usual event, a chat chunk that says nothing but a piece of text, joins the text-only part
   * still waiting at the end of the queue without becoming a part of its own: what `handleJson`
   * would do through `isErrorShape`, `normalizeChunk` and `appendToLast`, minus the part object and
   * the checks a plain content delta cannot fail. Anything else goes the general way.
   */
  private appendText(value: unknown): boolean {
    if (this.head >= this.queue.length || typeof value !== 'object' || value === null) return false;
    const chunk = value as Json;
    const choices = chunk.choices;
    if (!Array.isArray(choices) || chunk.message !== undefined || chunk.usage != null || chunk.done === true || namesError(chunk)) {
      return false;
    }
    const choice = asObject(choices[0]);
    const delta = asObject(choice?.delta);
    const content = delta?.content;
    if (typeof content !== 'string' || content === '' || delta!.role !== undefined || delta!.tool_calls != null) return false;
    if (delta!.reasoning_content != null || delta!.reasoning != null) return false;
    if (choice!.message !== undefined || choice!.finish_reason != null) return false;
    const last = this.queue[this.queue.length - 1]!;
    const id = typeof chunk.id === 'string' ? chunk.id : undefined;
    const model = typeof chunk.model === 'string' ? chunk.model : undefined;
    if (!isTextOnly(last) || last.id !== id || last.model !== model) return false;
    this.parts++;
    last.content += content;
    return true;
  }

  /**
   * The end marker. A stream that said nothing DocChat understood and then ended is not an empty
   * answer: something else (an error in an unknown shape) was sent, so it ends as an error.
   */
  private markDone(): void {
    if (this.parts === 0 && this.ununderstood > 0) {
      this.failure ??= new ProtocolError(
        `The ${this.source.service} ended the stream without an answer (it sent ${this.ununderstood} event${this.ununderstood === 1 ? '' : 's'} DocChat does not understand).`,
        { requestId: this.source.requestId },
      );
      return;
    }
    this.complete = true;
    this.finished = true;
  }

  /**
   * Releases the connection once: after `[DONE]` the rest is drained so the keep-alive socket can
   * be reused; stopping early (or failing) destroys it. undici's `dump()` limit counts every byte
   * of the body, including the answer already read, so it is given the bytes read so far plus what
   * may still come: with its default (128 KiB in all) a long answer would abort its own request.
   * The rest must come within the stream's idle timeout, or the connection is closed: a server
   * that keeps the response open after `[DONE]` does not hold a socket for ever.
   */
  private release(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.queue.length = 0;
    this.head = 0;
    const body = this.source.body;
    if (this.finished && body.dump) {
      const signal = AbortSignal.timeout(this.source.idleTimeoutMs);
      void body.dump({ limit: this.size + DRAIN_AFTER_DONE_BYTES, signal }).catch(() => undefined);
    } else body.destroy();
  }
}

/**
 * An iterator that runs `open` on the first `next()` (so one try around a for-await catches
 * request validation and connection failures too) and then hands every call to the iterator it
 * returned: no extra generator layer per part.
 */
export function deferredIterable<T>(open: () => Promise<AsyncIterator<T>>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let inner: AsyncIterator<T> | undefined;
      let opening: Promise<AsyncIterator<T>> | undefined;
      let closed = false;
      return {
        next(): Promise<IteratorResult<T>> {
          if (inner) return inner.next();
          if (closed) return Promise.resolve({ done: true, value: undefined });
          opening ??= open().then(
            (it) => (inner = it),
            (error: unknown) => {
              closed = true;
              throw error;
            },
          );
          return opening.then((it) => it.next());
        },
        return(): Promise<IteratorResult<T>> {
          closed = true;
          if (inner?.return) return inner.return();
          // Stopped while the request was still opening: release it once it answers.
          void opening?.then((it) => it.return?.()).catch(() => undefined);
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}
