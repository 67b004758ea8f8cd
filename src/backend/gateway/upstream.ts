/**
 * Forwarding to an OpenAI-compatible server (Ollama, vLLM, OpenAI, …): chat completions,
 * embeddings and the model list. Errors of the upstream are translated into this backend's
 * error shape, saying that they came from the upstream.
 */
import { type Dispatcher, fetch, type Response } from 'undici';
import { ApiError } from '../http/errors';
import type { BackendLog, UpstreamOptions } from '../options';
import type { Embedder } from '../search/embedder';
import type { ModelInfo } from './models';
import { chatCapable } from '../../common/chatCapability';

const MODEL_LIST_TTL_MS = 30_000;
const REQUEST_TIMEOUT_MS = 120_000;
/** How long a question about a model's abilities (LM Studio's list, Ollama's /api/show) may take. */
const CAPABILITY_TIMEOUT_MS = 5_000;

export function upstreamBase(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return /\/v\d+$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

export function isEmbeddingModel(id: string): boolean {
  return /embed/i.test(id);
}

export class Upstream {
  readonly base: string;
  private models: { at: number; list: ModelInfo[] } | undefined;
  /** The last list the upstream gave: listed, marked, while it does not answer. */
  private lastListed: ModelInfo[] = [];
  /** Which models of the list (by its time) chat, as the server says (see chatCapable). */
  private chatting: { at: number; ids: Set<string> } | undefined;

  /**
   * Whether the upstream is the company gateway (it embeds at `/embed`), which has the web tools;
   * a model server chosen with "Use a Language Model…" has only models.
   */
  get isCompanyGateway(): boolean {
    return this.options.embedPath === '/embed';
  }

  constructor(
    private readonly options: UpstreamOptions,
    private readonly log: BackendLog,
    /** The backend's dispatcher (proxy rules and certificates); undici's default without one. */
    private readonly dispatcher?: Dispatcher,
  ) {
    this.base = upstreamBase(options.url);
  }

  private headers(json: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (json) headers['content-type'] = 'application/json';
    if (this.options.key) {
      headers.authorization = `Bearer ${this.options.key}`;
      headers['api-key'] = this.options.key;
    }
    return headers;
  }

  /** A raw request to `<base><path>`; network failures become a 502. */
  async request(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<Response> {
    const signals = [AbortSignal.timeout(REQUEST_TIMEOUT_MS)];
    if (init.signal) signals.push(init.signal);
    try {
      return await fetch(`${this.base}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: this.headers(init.body !== undefined),
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.any(signals),
        ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      // The next model list asks again, instead of listing from the cache as if it answered.
      this.models = undefined;
      throw new ApiError({
        type: 'server_error',
        message: `The upstream server ${this.base} could not be reached: ${describe(error)}.`,
        code: 'upstream_unreachable',
        status: 502,
      });
    }
  }

  /** Turns a non-2xx upstream response into an ApiError for our client. */
  async failure(response: Response): Promise<ApiError> {
    let message = `HTTP ${response.status}`;
    let param: string | null = null;
    try {
      const text = await response.text();
      try {
        const body = JSON.parse(text) as { error?: { message?: string; param?: string } | string; message?: string };
        const inner = typeof body.error === 'string' ? body.error : body.error?.message;
        message = inner ?? body.message ?? (text.slice(0, 300) || message);
        if (typeof body.error === 'object' && typeof body.error?.param === 'string') param = body.error.param;
      } catch {
        if (text.trim()) message = text.trim().slice(0, 300);
      }
    } catch {
      // keep the status line
    }
    const text = `Upstream server: ${message}`;
    switch (response.status) {
      case 400:
      case 422:
        return new ApiError({ type: 'invalid_request_error', message: text, param, code: 'upstream_invalid_request' });
      case 401:
      case 403:
        return new ApiError({
          type: 'server_error',
          message: `${text} (the upstream rejected the configured upstream key)`,
          code: 'upstream_auth_failed',
          status: 502,
        });
      case 404:
        return new ApiError({ type: 'not_found_error', message: text, param, code: 'upstream_not_found' });
      case 429: {
        const retryAfter = response.headers.get('retry-after') ?? '1';
        const seconds = Number.isFinite(Number(retryAfter)) ? Math.max(1, Math.ceil(Number(retryAfter))) : 1;
        return new ApiError({
          type: 'rate_limit_error',
          message: text,
          code: 'upstream_rate_limited',
          status: 429,
          headers: {
            'retry-after': String(seconds),
            'retry-after-ms': String(seconds * 1000),
          },
        });
      }
      default:
        return new ApiError({ type: 'server_error', message: text, code: 'upstream_error', status: 502 });
    }
  }

  /** The upstream's models, cached briefly; an unreachable upstream lists none. */
  async listModels(): Promise<ModelInfo[]> {
    if (this.models && Date.now() - this.models.at < MODEL_LIST_TTL_MS) return this.models.list;
    try {
      const response = await this.request('/models', { signal: AbortSignal.timeout(10_000) });
      if (!response.ok) throw await this.failure(response);
      const body = (await response.json()) as { data?: unknown } | unknown[];
      const raw = Array.isArray(body) ? body : Array.isArray((body as { data?: unknown }).data) ? (body as { data: unknown[] }).data : [];
      const list = raw
        .map((m): ModelInfo | undefined => {
          const item = (typeof m === 'string' ? { id: m } : m) as Partial<ModelInfo> | null;
          if (!item || typeof item.id !== 'string') return undefined;
          return {
            ...item,
            id: item.id,
            object: 'model',
            created: typeof item.created === 'number' ? item.created : 0,
            owned_by: typeof item.owned_by === 'string' ? item.owned_by : 'upstream',
          };
        })
        .filter((m): m is ModelInfo => m !== undefined);
      this.models = { at: Date.now(), list };
      this.lastListed = list;
      return list;
    } catch (error) {
      this.log('warn', `Could not list the upstream models: ${describe(error)}`);
      // A server that stopped: its models stay listed, marked, so the client can say why they fail.
      const unreachable = error instanceof ApiError && error.code === 'upstream_unreachable';
      return unreachable ? this.lastListed.map((m) => ({ ...m, unavailable: 'server not answering' })) : [];
    }
  }

  /**
   * The upstream's chat models: not the embedding models, nor those a model server says cannot
   * chat (LM Studio's model types, Ollama's capabilities). The company gateway (`embedPath`
   * `/embed`) is not asked: its list is its chat models.
   */
  async listChatModels(): Promise<ModelInfo[]> {
    const list = (await this.listModels()).filter((m) => !isEmbeddingModel(m.id));
    const at = this.models?.at;
    if (this.isCompanyGateway) return list;
    if (at === undefined) {
      // The server does not answer: its models as it last said.
      const known = this.chatting?.ids;
      return known ? list.filter((m) => known.has(m.id)) : list;
    }
    if (this.chatting?.at !== at) {
      const ollama = await this.originJson('/api/tags').then(
        (body) => Array.isArray((body as { models?: unknown } | null)?.models),
        () => false,
      );
      const ids = await chatCapable(
        list.map((m) => m.id),
        (path, body) => this.originJson(path, body),
        { ollama },
      );
      this.chatting = { at, ids: new Set(ids) };
    }
    const chatting = this.chatting.ids;
    return list.filter((m) => chatting.has(m.id));
  }

  /** JSON from the server's own API beside `/v1` (`/api/…`); rejects when it does not answer with it. */
  private async originJson(path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${new URL(this.base).origin}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: this.headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(CAPABILITY_TIMEOUT_MS),
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status}`);
    }
    return response.json();
  }

  async embeddingModel(): Promise<string | undefined> {
    if (this.options.embeddingModel) return this.options.embeddingModel;
    return (await this.listModels()).find((m) => isEmbeddingModel(m.id) && !m.unavailable)?.id;
  }

  /** Embeddings in OpenAI's shape: `{data: [{embedding, index}], usage}`. */
  async embeddings(
    body: { model: string; input: string | string[]; dimensions?: number },
    signal?: AbortSignal,
  ): Promise<{ data: { embedding: number[]; index: number }[]; usage?: unknown }> {
    const response = await this.request(this.options.embedPath ?? '/embeddings', { body, signal });
    if (!response.ok) throw await this.failure(response);
    const json = (await response.json()) as { data?: { embedding: number[]; index: number }[]; usage?: unknown };
    if (!Array.isArray(json.data)) {
      throw new ApiError({
        type: 'server_error',
        message: 'Upstream server: the embeddings response has no data.',
        code: 'upstream_error',
        status: 502,
      });
    }
    return { data: json.data, usage: json.usage };
  }

  /**
   * The Embedder for hybrid search. The model is looked up when needed (the upstream may start
   * after this backend); without an embedding model it returns no vectors and search stays BM25.
   */
  embedder(): Embedder {
    let model = this.options.embeddingModel ?? '';
    return {
      get model() {
        return model;
      },
      embed: async (texts, signal) => {
        model = (await this.embeddingModel()) ?? '';
        if (!model) return [];
        const { data } = await this.embeddings({ model, input: texts }, signal);
        return [...data].sort((a, b) => a.index - b.index).map((d) => Float32Array.from(d.embedding));
      },
    };
  }
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}

/** The chunks of a fetch body (the DOM typings lack ReadableStream's async iterator). */
/** A web stream of bytes, from undici's fetch or the global one. */
interface ByteStream {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void>; releaseLock(): void };
}

export async function* chunksOf(body: ByteStream | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      if (value) yield value;
    }
  } finally {
    // Stopped early: cancel so the connection to the server is released.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
