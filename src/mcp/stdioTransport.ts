/**
 * The stdio transport of DocChat's MCP server: one JSON-RPC message per line, with the protocol
 * errors the specification asks for before a message reaches the server. A line that is not JSON
 * gets a parse error (-32700); JSON that is not a JSON-RPC message gets an invalid-request error
 * (-32600), and so does a request the server's own schema would drop unanswered (an id of 1.5;
 * params that are not an object get -32602); and on the 2025 revisions a request before `initialize` gets an invalid-request error
 * saying to initialize first (2026-07-28 requests carry their protocol version and need no
 * handshake). A client that sends requests without waiting for the answers gets at most
 * MAX_RUNNING_REQUESTS of them served at once and MAX_WAITING_REQUESTS waiting; each one past that
 * is answered at once with a busy error (-32003) that names the limits. No `vscode` import.
 */
import type { Readable, Writable } from 'node:stream';
import { isJSONRPCRequest, type JSONRPCMessage, specTypeSchemas, type Transport } from '@modelcontextprotocol/server';

/** The longest message read (5 MB arguments fit with room to spare); a longer one is refused. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** Requests the server works on at once (tool calls, resource reads, lists). */
export const MAX_RUNNING_REQUESTS = 8;
/** Requests that wait for one of those to finish; a request past them is answered busy. */
export const MAX_WAITING_REQUESTS = 64;
/** Most bytes of waiting requests (a few long messages may fill the queue before its count does). */
export const MAX_WAITING_BYTES = 64 * 1024 * 1024;

/** -32003: a server error of the implementation-defined range the MCP specification leaves free. */
export const JsonRpcErrors = { parse: -32700, invalidRequest: -32600, invalidParams: -32602, busy: -32003 } as const;

/** Requests served however busy the server is: they do no work, or hold a subscription open for the connection. */
const NEVER_QUEUED = new Set(['initialize', 'ping', 'server/discover', 'subscriptions/listen']);

/** `_meta` key by which a 2026-07-28 request names its protocol version (no handshake in that generation). */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/** What a 2025 client may send before its `initialize` has been answered. */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping', 'server/discover']);

/**
 * The spec types of the requests whose params the server checks before its handler runs, where a
 * failed check would answer -32603 (internal error) rather than -32602: checked here first.
 */
const CHECKED_PARAMS: Readonly<Record<string, keyof typeof specTypeSchemas>> = {
  initialize: 'InitializeRequest',
  'resources/list': 'ListResourcesRequest',
  'resources/templates/list': 'ListResourceTemplatesRequest',
  'resources/read': 'ReadResourceRequest',
  'tools/list': 'ListToolsRequest',
};

/** Why a request's params are not what its method takes (the first problem), or undefined when they are. */
function paramsProblem(message: Incoming): string | undefined {
  const type = CHECKED_PARAMS[message.method as string];
  if (!type) return undefined;
  const result = specTypeSchemas[type]['~standard'].validate({ method: message.method, params: message.params ?? {} });
  if (!result.issues) return undefined;
  const issue = result.issues[0];
  const path = (issue?.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment));
  const where = ['params', ...path.slice(1)].join('.');
  return `Invalid params for ${String(message.method)}: ${where}: ${issue?.message ?? 'not what the method takes'}.`;
}

type RequestId = string | number;

/** The first protocol revision without JSON-RPC batches. */
const BATCHES_UNTIL = '2025-06-18';

/** A batch being answered: the keys of its requests not answered yet, and the answers so far. */
interface Batch {
  readonly waiting: Set<string>;
  readonly answers: JSONRPCMessage[];
}

interface Incoming {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: { _meta?: Record<string, unknown> };
  result?: unknown;
  error?: unknown;
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** A request id as a key: 1 and "1" are different requests. */
function requestKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while the rest of a too long line is dropped. */
  private discarding = false;
  /** The id of the `initialize` request being answered, then `true` once it was. */
  private initialize: RequestId | boolean = false;
  private closed = false;
  /** Requests handed to the server and not answered yet, by `requestKey`. */
  private readonly running = new Set<string>();
  /** Requests waiting for a running one to finish, first come first served. */
  private waiting: Array<{ request: Incoming & { id: RequestId }; bytes: number }> = [];
  private waitingBytes = 0;
  /** The protocol revision `initialize` agreed on, once answered. */
  private revision: string | undefined;
  /** The batches with requests not answered yet, by the `requestKey` of each such request. */
  private readonly batches = new Map<string, Batch>();
  /** The batch whose messages are being taken in: errors answered at once go into its answer. */
  private collecting: Batch | undefined;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onStreamError);
    // A client that went away (EPIPE) ends the connection rather than the process.
    this.output.on('error', this.onStreamError);
    this.input.once('end', this.onEnd);
    this.input.once('close', this.onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const response = message as Incoming;
    if (this.initialize !== true && this.initialize !== false && response.id === this.initialize && 'result' in response) {
      this.initialize = true;
      const agreed = (response.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      this.revision = typeof agreed === 'string' ? agreed : undefined;
    }
    if (response.method === undefined && isRequestId(response.id) && this.running.delete(requestKey(response.id))) this.startWaiting();
    const batch = response.method === undefined && isRequestId(response.id) ? this.batches.get(requestKey(response.id)) : undefined;
    if (batch) {
      batch.answers.push(message);
      this.settle(batch, requestKey(response.id as RequestId));
      return;
    }
    await this.write(message);
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onStreamError);
    this.output.off('error', this.onStreamError);
    this.onEnd();
  }

  private readonly onEnd = () => {
    if (this.closed) return;
    this.closed = true;
    this.waiting = [];
    this.waitingBytes = 0;
    this.running.clear();
    this.batches.clear();
    this.onclose?.();
  };

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer) => {
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  };

  private take(part: Buffer): void {
    if (this.discarding || !part.length) return;
    if (this.pendingBytes + part.length > MAX_MESSAGE_BYTES) {
      this.discarding = true;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    // A copy: the stream may reuse the chunk's memory.
    this.pending.push(Buffer.from(part));
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.reject(
        null,
        JsonRpcErrors.invalidRequest,
        `The message is larger than ${MAX_MESSAGE_BYTES / (1024 * 1024)} MB, the most this server reads.`,
      );
      return;
    }
    const bytes = this.pendingBytes;
    const line = Buffer.concat(this.pending, bytes).toString('utf8').trim();
    this.pending = [];
    this.pendingBytes = 0;
    if (line) this.receive(line, bytes);
  }

  private receive(line: string, bytes: number): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.reject(
        null,
        JsonRpcErrors.parse,
        `Parse error: the line is not JSON (${error instanceof Error ? error.message : String(error)}).`,
      );
      return;
    }
    if (Array.isArray(value)) this.receiveBatch(value, bytes);
    else this.handle(value, bytes);
  }

  /**
   * A JSON-RPC batch: part of the protocol up to revision 2025-03-26 (which says a server MUST take
   * one), removed from 2025-06-18 on. Its messages are taken one by one; their answers go back
   * together, as one array, once every request of it is answered (none for notifications only).
   */
  private receiveBatch(messages: unknown[], bytes: number): void {
    if (this.initialize !== true || this.revision === undefined || this.revision >= BATCHES_UNTIL) {
      this.reject(
        null,
        JsonRpcErrors.invalidRequest,
        this.initialize === true && this.revision !== undefined
          ? `Invalid request: protocol revision ${this.revision} has no JSON-RPC batches; send one message per line.`
          : `Invalid request: a JSON-RPC batch is taken only in a session of protocol revision 2024-11-05 or 2025-03-26, once initialized (initialize itself is never part of a batch).`,
      );
      return;
    }
    if (!messages.length) {
      this.reject(null, JsonRpcErrors.invalidRequest, 'Invalid request: the batch is empty.');
      return;
    }
    const batch: Batch = { waiting: new Set(), answers: [] };
    for (const message of messages) {
      const request = message as Incoming | null;
      if (request && typeof request === 'object' && typeof request.method === 'string' && isRequestId(request.id)) {
        const key = requestKey(request.id);
        batch.waiting.add(key);
        this.batches.set(key, batch);
      }
    }
    this.collecting = batch;
    try {
      for (const message of messages) this.handle(message, bytes / messages.length);
    } finally {
      this.collecting = undefined;
    }
    if (!batch.waiting.size) this.flush(batch);
  }

  /** A request of `batch` is done with (answered, or cancelled: no answer); the batch goes out once all are. */
  private settle(batch: Batch, key: string): void {
    this.batches.delete(key);
    batch.waiting.delete(key);
    if (!batch.waiting.size && this.collecting !== batch) this.flush(batch);
  }

  private flush(batch: Batch): void {
    if (!batch.answers.length) return;
    void this.write(batch.answers).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }

  private handle(value: unknown, bytes: number): void {
    const message = (value && typeof value === 'object' && !Array.isArray(value) ? value : undefined) as Incoming | undefined;
    const id = message && isRequestId(message.id) ? message.id : null;
    const isRequest = !!message && typeof message.method === 'string' && id !== null;
    const isNotification = !!message && typeof message.method === 'string' && message.id === undefined;
    const isResponse = !!message && id !== null && message.method === undefined && ('result' in message || 'error' in message);
    if (!message || message.jsonrpc !== '2.0' || !(isRequest || isNotification || isResponse)) {
      this.reject(id, JsonRpcErrors.invalidRequest, 'Invalid request: not a JSON-RPC 2.0 request, notification or response.');
      return;
    }
    // The server drops a request its own schema refuses (an id of 1.5, params that are no object, a
    // field JSON-RPC does not have) without an answer, and its place would stay taken: answered here.
    if (isRequest && !isJSONRPCRequest(message)) {
      const { params, ...rest } = message as Incoming & { params?: unknown };
      // The params are what is wrong when the request is well formed without them (`_meta.progressToken: 1.5`).
      const paramsAreObject =
        params === undefined || (params !== null && typeof params === 'object' && !Array.isArray(params) && !isJSONRPCRequest(rest));
      this.reject(
        id,
        paramsAreObject ? JsonRpcErrors.invalidRequest : JsonRpcErrors.invalidParams,
        paramsAreObject
          ? 'Invalid request: a request has jsonrpc "2.0", an id that is a string or a whole number, a method and, optionally, params (an object), and no other field.'
          : 'Invalid params: params must be an object, with _meta (if any) as the protocol defines it.',
      );
      return;
    }
    const problem = isRequest ? paramsProblem(message) : undefined;
    if (problem) {
      this.reject(id, JsonRpcErrors.invalidParams, problem);
      return;
    }
    if (this.initialize !== true && !this.mayComeBeforeInitialize(message)) {
      if (isRequest) {
        this.reject(
          id,
          JsonRpcErrors.invalidRequest,
          `The server is not initialized: send "initialize" first (or, in protocol revision 2026-07-28, name the protocol version in the request's _meta "${PROTOCOL_VERSION_META}").`,
        );
      }
      return; // notifications before initialization are dropped
    }
    if (this.collecting && isRequest && message.method === 'initialize') {
      this.reject(id, JsonRpcErrors.invalidRequest, 'Invalid request: initialize is never part of a JSON-RPC batch.');
      return;
    }
    // The latest `initialize` counts: a client may try again after one was refused.
    if (isRequest && message.method === 'initialize' && this.initialize !== true) this.initialize = id;
    if (isRequest && !NEVER_QUEUED.has(message.method as string)) {
      this.admit(message as Incoming & { id: RequestId }, bytes);
      return;
    }
    if (isNotification && message.method === 'notifications/cancelled' && !this.cancel(message)) return;
    this.onmessage?.(message as JSONRPCMessage);
  }

  /** Serves a request now, queues it, or answers it busy. */
  private admit(request: Incoming & { id: RequestId }, bytes: number): void {
    if (this.running.size < MAX_RUNNING_REQUESTS && !this.waiting.length) {
      this.running.add(requestKey(request.id));
      this.onmessage?.(request as JSONRPCMessage);
    } else if (this.waiting.length < MAX_WAITING_REQUESTS && this.waitingBytes + bytes <= MAX_WAITING_BYTES) {
      this.waiting.push({ request, bytes });
      this.waitingBytes += bytes;
    } else {
      this.reject(
        request.id,
        JsonRpcErrors.busy,
        `DocChat's MCP server is busy: ${MAX_RUNNING_REQUESTS} requests are running and at most ${MAX_WAITING_REQUESTS} (${MAX_WAITING_BYTES / (1024 * 1024)} MB of them) can wait; retry after the running ones finish.`,
        { maxRunning: MAX_RUNNING_REQUESTS, maxWaiting: MAX_WAITING_REQUESTS, maxWaitingBytes: MAX_WAITING_BYTES },
      );
    }
  }

  /** Hands waiting requests to the server while fewer than the most are running. */
  private startWaiting(): void {
    while (!this.closed && this.running.size < MAX_RUNNING_REQUESTS && this.waiting.length) {
      const { request, bytes } = this.waiting.shift()!;
      this.waitingBytes -= bytes;
      this.running.add(requestKey(request.id));
      // After the answer being sent is written, as if the request had only now arrived.
      queueMicrotask(() => this.onmessage?.(request as JSONRPCMessage));
    }
  }

  /**
   * A cancellation: a waiting request is dropped (no answer, as the specification asks of a
   * cancelled request) and the notification goes no further; a running one frees its place, since
   * the server does not answer a request once cancelled. False when the notification is done with.
   */
  private cancel(message: Incoming): boolean {
    const params = message.params as { requestId?: unknown } | undefined;
    const id = params?.requestId;
    if (!isRequestId(id)) return true;
    const key = requestKey(id);
    const index = this.waiting.findIndex(({ request }) => requestKey(request.id) === key);
    const batch = this.batches.get(key);
    if (batch) this.settle(batch, key);
    if (index >= 0) {
      this.waitingBytes -= this.waiting.splice(index, 1)[0]!.bytes;
      return false;
    }
    if (this.running.delete(key)) this.startWaiting();
    return true;
  }

  private mayComeBeforeInitialize(message: Incoming): boolean {
    if (typeof message.method !== 'string') return false;
    if (BEFORE_INITIALIZE.has(message.method)) return true;
    if (message.method === 'notifications/initialized' || message.method === 'notifications/cancelled') return this.initialize !== false;
    return typeof message.params?._meta?.[PROTOCOL_VERSION_META] === 'string';
  }

  private reject(id: RequestId | null, code: number, message: string, data?: Record<string, unknown>): void {
    const answer = { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } } as const;
    const batch = this.collecting;
    if (batch) {
      batch.answers.push(answer as unknown as JSONRPCMessage);
      if (id !== null) this.settle(batch, requestKey(id));
      return;
    }
    void this.write(answer).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) {
        resolve();
        return;
      }
      // Each listener takes the other away, so a slow reader does not leave them piling up.
      const drained = () => {
        this.output.off('error', failed);
        resolve();
      };
      const failed = (error: Error) => {
        this.output.off('drain', drained);
        reject(error);
      };
      this.output.once('drain', drained);
      this.output.once('error', failed);
    });
  }
}
