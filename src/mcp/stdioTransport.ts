/**
 * The stdio transport of DocChat's MCP server: one JSON-RPC message per line, with the protocol
 * errors the specification asks for before a message reaches the server. A line that is not JSON
 * gets a parse error (-32700); JSON that is not a JSON-RPC message gets an invalid-request error
 * (-32600); and on the 2025 revisions a request before `initialize` gets an invalid-request error
 * saying to initialize first (2026-07-28 requests carry their protocol version and need no
 * handshake). No `vscode` import.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/** The longest message read (5 MB arguments fit with room to spare); a longer one is refused. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

export const JsonRpcErrors = { parse: -32700, invalidRequest: -32600 } as const;

/** `_meta` key by which a 2026-07-28 request names its protocol version (no handshake in that generation). */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/** What a 2025 client may send before its `initialize` has been answered. */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping', 'server/discover']);

type RequestId = string | number;

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
    const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8').trim();
    this.pending = [];
    this.pendingBytes = 0;
    if (line) this.receive(line);
  }

  private receive(line: string): void {
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
    const message = (value && typeof value === 'object' && !Array.isArray(value) ? value : undefined) as Incoming | undefined;
    const id = message && isRequestId(message.id) ? message.id : null;
    const isRequest = !!message && typeof message.method === 'string' && id !== null;
    const isNotification = !!message && typeof message.method === 'string' && message.id === undefined;
    const isResponse = !!message && id !== null && message.method === undefined && ('result' in message || 'error' in message);
    if (!message || message.jsonrpc !== '2.0' || !(isRequest || isNotification || isResponse)) {
      this.reject(id, JsonRpcErrors.invalidRequest, 'Invalid request: not a JSON-RPC 2.0 request, notification or response.');
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
    if (isRequest && message.method === 'initialize' && this.initialize === false) this.initialize = id;
    this.onmessage?.(message as JSONRPCMessage);
  }

  private mayComeBeforeInitialize(message: Incoming): boolean {
    if (typeof message.method !== 'string') return false;
    if (BEFORE_INITIALIZE.has(message.method)) return true;
    if (message.method === 'notifications/initialized' || message.method === 'notifications/cancelled') return this.initialize !== false;
    return typeof message.params?._meta?.[PROTOCOL_VERSION_META] === 'string';
  }

  private reject(id: RequestId | null, code: number, message: string): void {
    void this.write({ jsonrpc: '2.0', id, error: { code, message } }).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else {
        this.output.once('drain', resolve);
        this.output.once('error', reject);
      }
    });
  }
}
