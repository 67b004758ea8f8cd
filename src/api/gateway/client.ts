/** Typed client of the language-model gateway: chat, models, deprecated inference, embeddings, tools. */
import * as z from 'zod';
import { abortedError } from '../http/clock';
import { NotFoundError, ProtocolError, StreamError, TimeoutError, ValidationError } from '../http/errors';
import type { CallOptions, ClientOptions } from '../http/options';
import { ServiceClient } from '../http/serviceClient';
import { GENERATION_HEADERS_TIMEOUT_MS, headerValue, type RequestSpec, type Transport } from '../http/transport';
import { parseRequest, parseResponse } from '../http/validate';
import {
  type ChatCompletion,
  chatCompletionSchema,
  type ChatRequest,
  chatRequestSchema,
  type ChatStreamPart,
  type EmbeddingResponse,
  embeddingResponseSchema,
  type EmbedRequest,
  embedRequestSchema,
  GATEWAY_RATE_LIMITS,
  type GatewayOperation,
  INFERENCE_RETIREMENT,
  type InferenceRequest,
  inferenceRequestSchema,
  type InferenceResponse,
  inferenceResponseSchema,
  type ModelInfo,
  NO_PROJECT_CODE,
  RESEARCH_TERMINAL_STATUSES,
  researchRequestSchema,
  type ResearchTask,
  researchTaskSchema,
  type SkillResult,
  skillResultSchema,
  skillshareRequestSchema,
  type WebCrawlResponse,
  webCrawlRequestSchema,
  webCrawlResponseSchema,
  type WebSearchRequest,
  webSearchRequestSchema,
  type WebSearchResponse,
  webSearchResponseSchema,
} from './schemas';
import { deferredIterable, parseCompletionStream, wholeAnswerPart } from './stream';

export interface GatewayClientOptions extends ClientOptions {
  /** Sent as `X-Project-Code` and `project_code`; blank means `NA`. */
  projectCode?: string;
}

export interface ResearchWaitOptions extends CallOptions {
  onProgress?(task: ResearchTask): void;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Give up (TimeoutError) after this long. Default 30 minutes. */
  timeoutMs?: number;
}

const CHAT_PATHS = ['/v1/chat/completions', '/v1/completions'] as const;

const WARM_UP_CHAT: ChatRequest = { model: 'warm-up', messages: [{ role: 'user', content: 'warm-up' }], stream: true };

/** Model lists come as a bare array, `{data}` or `{models}`, of strings or objects. */
export function normalizeModelList(value: unknown): ModelInfo[] | undefined {
  const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const list = Array.isArray(value)
    ? value
    : Array.isArray(record?.data)
      ? record.data
      : Array.isArray(record?.models)
        ? record.models
        : undefined;
  if (!list) return undefined;
  const models: ModelInfo[] = [];
  for (const item of list) {
    if (typeof item === 'string') {
      if (item) models.push({ id: item });
    } else if (item && typeof item === 'object') {
      const entry = item as Record<string, unknown>;
      const id = [entry.id, entry.name, entry.model].find((v): v is string => typeof v === 'string' && v !== '');
      if (id) models.push({ ...entry, id });
    }
  }
  return models;
}

const skillListSchema = z.preprocess((value) => {
  const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  return Array.isArray(value) ? value : (record?.results ?? record?.data ?? value);
}, z.array(skillResultSchema));

export class GatewayClient extends ServiceClient<GatewayOperation> {
  private readonly projectCode: string;
  private chatPathIndex = 0;
  private warnedDeprecated = false;

  constructor(options: GatewayClientOptions) {
    super(options, {
      service: 'gateway',
      auth: { header: 'api-key', value: (key) => key, name: 'API key' },
      defaultRateLimits: GATEWAY_RATE_LIMITS,
    });
    this.projectCode = options.projectCode?.trim() || NO_PROJECT_CODE;
    // zod compiles a schema's checks at its first parse: done when the process is idle, not on
    // the first question (the transport warms up its connection pool the same way).
    setImmediate(() => chatRequestSchema.safeParse(WARM_UP_CHAT)).unref();
  }

  // ------------------------------------------------------------ chat

  /**
   * Sends a chat request to `/v1/chat/completions`, or to `/v1/completions` when the first
   * answers 404 (the document names both); the path that worked is remembered.
   */
  private async openChat(json: unknown, stream: boolean, o: CallOptions = {}) {
    const spec = (path: string) =>
      this.spec('chatCompletion', 'POST', path, o, {
        json,
        headers: { 'x-project-code': this.projectCode },
        accept: stream ? 'text/event-stream, application/x-ndjson;q=0.9, application/json;q=0.8' : 'application/json',
        headersTimeoutMs: GENERATION_HEADERS_TIMEOUT_MS,
        ...(stream ? { bodyTimeoutMs: 0 } : {}),
      });
    const first = this.chatPathIndex;
    try {
      const s = spec(CHAT_PATHS[first]!);
      return { spec: s, response: await this.http.open(s) };
    } catch (error) {
      const routeMissing = error instanceof NotFoundError && error.param !== 'model' && !/model/i.test(error.code ?? '');
      if (!routeMissing || first !== 0) throw error;
      const s = spec(CHAT_PATHS[1]);
      try {
        const response = await this.http.open(s);
        this.chatPathIndex = 1;
        this.log?.('info', `The gateway has no ${CHAT_PATHS[0]}; using ${CHAT_PATHS[1]}.`);
        return { spec: s, response };
      } catch (fallbackError) {
        // A 4xx from the fallback says more about the wrong path than about the request.
        throw fallbackError instanceof ValidationError || fallbackError instanceof NotFoundError ? error : fallbackError;
      }
    }
  }

  async chatCompletion(req: ChatRequest, o?: CallOptions): Promise<ChatCompletion> {
    const json = parseRequest(chatRequestSchema, { ...req, stream: false });
    const { spec, response } = await this.openChat(json, false, o);
    const value = await this.http.readJson(response, spec);
    return parseResponse(chatCompletionSchema, value, 'chat completion', { status: response.status, requestId: response.requestId });
  }

  /** Deltas as they arrive, the last ones with `finishReason` and `usage`. Never retried once started. */
  streamChatCompletion(req: ChatRequest, o: CallOptions = {}): AsyncIterable<ChatStreamPart> {
    // Validated on iteration, so one try around the for-await catches every failure.
    return deferredIterable(async () => {
      const json = parseRequest(chatRequestSchema, { ...req, stream: true });
      const { spec, response } = await this.openChat(json, true, o);
      return this.streamParts(response, spec);
    });
  }

  private streamParts(response: Awaited<ReturnType<Transport['open']>>, spec: RequestSpec): AsyncIterator<ChatStreamPart> {
    if (/application\/json|text\/html/i.test(response.contentType)) {
      // The server ignored `stream: true` and answered in one piece: still a valid answer.
      // (A web page, e.g. a proxy's sign-in page, is refused there as a ProtocolError.)
      return this.singleAnswer(response, spec);
    }
    return parseCompletionStream({
      body: response.body,
      contentType: response.contentType,
      requestId: response.requestId,
      idleTimeoutMs: this.http.streamIdleTimeoutMs,
      idleError: () => this.http.streamIdleError(response.requestId),
      maxBytes: this.http.maxResponseBytes,
      tooLargeError: () => this.http.tooLargeError(response.requestId, response.status),
      readError: (raw) => {
        if (spec.signal?.aborted) return abortedError(spec.signal);
        const error = this.http.networkError(raw, response.path, response.requestId, spec);
        if (error.kind === 'timeout') return error;
        return new StreamError(`The connection to the gateway closed while the answer was streaming.`, {
          requestId: response.requestId,
          cause: raw,
        });
      },
      service: 'gateway',
    });
  }

  private async *singleAnswer(response: Awaited<ReturnType<Transport['open']>>, spec: RequestSpec): AsyncGenerator<ChatStreamPart> {
    const value = await this.http.readJson(response, spec);
    const part = wholeAnswerPart(value, { service: 'gateway', requestId: response.requestId });
    if (!part) {
      throw new ProtocolError('The gateway sent an answer in an unexpected shape.', {
        status: response.status,
        requestId: response.requestId,
      });
    }
    yield part;
  }

  // ------------------------------------------------------------ models

  private async models(operation: GatewayOperation, path: string, o?: CallOptions): Promise<ModelInfo[]> {
    const spec = this.spec(operation, 'GET', path, o);
    const response = await this.http.open(spec);
    const value = await this.http.readJson(response, spec);
    const models = normalizeModelList(value);
    if (!models) {
      throw new ProtocolError('The gateway sent a model list in an unexpected shape.', {
        status: response.status,
        requestId: response.requestId,
      });
    }
    return models;
  }

  async listCompletionModels(o?: CallOptions): Promise<ModelInfo[]> {
    return this.models('listCompletionModels', '/v1/completions/models', o);
  }

  async listEmbeddingModels(o?: CallOptions): Promise<ModelInfo[]> {
    return this.models('listEmbeddingModels', '/v1/embed/models', o);
  }

  // ------------------------------------------------------------ deprecated inference

  private warnDeprecated(model: string): void {
    if (this.warnedDeprecated) return;
    this.warnedDeprecated = true;
    this.log?.(
      'warn',
      `The gateway's inference endpoint (used for model "${model}") is deprecated and will be retired on ${INFERENCE_RETIREMENT}; move to chat completions before then.`,
    );
  }

  private inferenceSpec(model: string, req: InferenceRequest, stream: boolean, o?: CallOptions): RequestSpec {
    if (typeof model !== 'string' || model.trim() === '') {
      throw new ValidationError('model', 'a model name', 'The model must not be empty.');
    }
    const json = parseRequest(inferenceRequestSchema, {
      ...req,
      project_code: req.project_code?.trim() || this.projectCode,
      stream,
    });
    this.warnDeprecated(model);
    return this.spec('inference', 'POST', `/v1/inference/${encodeURIComponent(model)}`, o, {
      json,
      accept: stream ? 'text/event-stream, application/x-ndjson;q=0.9, application/json;q=0.8' : 'application/json',
      headersTimeoutMs: GENERATION_HEADERS_TIMEOUT_MS,
      ...(stream ? { bodyTimeoutMs: 0 } : {}),
    });
  }

  /** @deprecated The gateway retires this endpoint on December 17; use chatCompletion. */
  async inference(model: string, req: InferenceRequest, o?: CallOptions): Promise<InferenceResponse> {
    const spec = this.inferenceSpec(model, req, false, o);
    const response = await this.http.open(spec);
    const sunset = headerValue(response.headers, 'sunset');
    if (sunset) this.log?.('debug', `The inference endpoint announces its sunset: ${sunset}.`);
    const value = await this.http.readJson(response, spec);
    return parseResponse(inferenceResponseSchema, value, 'inference response', { status: response.status, requestId: response.requestId });
  }

  /** @deprecated The gateway retires this endpoint on December 17; use streamChatCompletion. */
  streamInference(model: string, req: InferenceRequest, o: CallOptions = {}): AsyncIterable<ChatStreamPart> {
    return deferredIterable(async () => {
      const spec = this.inferenceSpec(model, req, true, o);
      const response = await this.http.open(spec);
      return this.streamParts(response, spec);
    });
  }

  // ------------------------------------------------------------ embeddings and tools

  async embed(req: EmbedRequest, o?: CallOptions): Promise<EmbeddingResponse> {
    const json = parseRequest(embedRequestSchema, req);
    return this.http.json(
      this.spec('embed', 'POST', '/v1/embed', o, { json, idempotent: true }),
      embeddingResponseSchema,
      'embedding response',
    );
  }

  async skillshare(query: string, o?: CallOptions): Promise<SkillResult[]> {
    const json = parseRequest(skillshareRequestSchema, { query });
    return this.http.json(
      this.spec('skillshare', 'POST', '/v1/tools/skillshare', o, { json, idempotent: true }),
      skillListSchema,
      'skill search result',
    );
  }

  async webCrawl(urls: string[], o?: CallOptions): Promise<WebCrawlResponse> {
    const json = parseRequest(webCrawlRequestSchema, { urls });
    return this.http.json(
      this.spec('webCrawl', 'POST', '/v1/tools/web/crawl', o, { json, idempotent: true, headersTimeoutMs: GENERATION_HEADERS_TIMEOUT_MS }),
      webCrawlResponseSchema,
      'crawl result',
    );
  }

  async webSearch(req: WebSearchRequest, o?: CallOptions): Promise<WebSearchResponse> {
    const json = parseRequest(webSearchRequestSchema, req);
    return this.http.json(
      this.spec('webSearch', 'POST', '/v1/tools/web/search', o, { json, idempotent: true }),
      webSearchResponseSchema,
      'web search result',
    );
  }

  async startResearch(query: string, o?: CallOptions): Promise<ResearchTask> {
    const json = parseRequest(researchRequestSchema, { query });
    return this.http.json(this.spec('startResearch', 'POST', '/v1/tools/web/research', o, { json }), researchTaskSchema, 'research task');
  }

  async researchStatus(id: string, o?: CallOptions): Promise<ResearchTask> {
    if (typeof id !== 'string' || id.trim() === '') {
      throw new ValidationError('research_id', 'a non-empty id', 'The research id must not be empty.');
    }
    const path = `/v1/tools/web/research/${encodeURIComponent(id)}`;
    return this.http.json(this.spec('researchStatus', 'GET', path, o), researchTaskSchema, 'research task');
  }

  /** Polls until `completed`, `failed` or `cancelled` and returns that task; unknown statuses keep polling. */
  async waitForResearch(id: string, o: ResearchWaitOptions = {}): Promise<ResearchTask> {
    const clock = this.http.clock;
    const timeoutMs = o.timeoutMs ?? 30 * 60_000;
    const deadline = clock.now() + timeoutMs;
    const maxDelay = o.maxDelayMs ?? 10_000;
    let delay = o.initialDelayMs ?? 1_000;
    const warned = new Set<string>();
    for (;;) {
      const task = await this.researchStatus(id, o);
      o.onProgress?.(task);
      if (RESEARCH_TERMINAL_STATUSES.includes(task.status)) return task;
      if (task.status !== 'in_progress' && !warned.has(task.status)) {
        warned.add(task.status);
        this.log?.('warn', `Research ${id} has the unknown status "${task.status}"; still waiting for it to finish.`);
      }
      if (clock.now() + delay > deadline) {
        throw new TimeoutError(`Research ${id} was still "${task.status}" after ${Math.round(timeoutMs / 60_000)} min.`);
      }
      await clock.sleep(delay, o.signal);
      delay = Math.min(delay * 2, maxDelay);
    }
  }
}
