/** HTTP routes of the gateway: completions, inference (deprecated), embeddings, models, tools. */
import type { Dispatcher } from 'undici';
import { readJson } from '../http/body';
import { LOCAL_MODE_TOOL } from '../../api/gateway/models';
import { ApiError, invalid, notImplemented } from '../http/errors';
import { sendJson } from '../http/respond';
import type { RequestContext, Route } from '../http/router';
import { respondLocal, respondUpstream, type ChatInput } from './chat';
import { crawlOne, type PageConverter } from './crawl';
import {
  hashingEmbedding,
  LOCAL_EMBEDDING_DEFAULT_DIMENSIONS,
  LOCAL_EMBEDDING_MAX_DIMENSIONS,
  LOCAL_EMBEDDING_MODEL,
} from './localEmbedding';
import { LOCAL_CHAT_MODEL, LOCAL_CHAT_MODEL_INFO, LOCAL_EMBEDDING_MODEL_INFO, modelNotFound, type ModelInfo } from './models';
import type { SkillDirectory } from './skills';
import { checkChat, checkCrawl, checkEmbed, checkInference, checkResearch, checkSkillshare, checkWebSearch } from './requests';
import { isEmbeddingModel, type Upstream } from './upstream';

export interface GatewayDeps {
  upstream?: Upstream;
  skills: SkillDirectory;
  /** Converts crawled pages within the conversion bounds (the documents' worker pool). */
  convertPage: PageConverter;
  /** For the web crawl's page fetches (proxy rules and certificates). */
  dispatcher?: Dispatcher;
}

/** The inference endpoint retires on December 17 (year not shown): the next one from today. */
export function sunsetDate(now = new Date()): Date {
  const year = now.getUTCFullYear();
  const thisYear = new Date(Date.UTC(year, 11, 17));
  return now.getTime() <= thisYear.getTime() + 86_400_000 ? thisYear : new Date(Date.UTC(year + 1, 11, 17));
}

export function projectCodeOf(ctx: RequestContext): string {
  const header = ctx.req.headers['x-project-code'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  return value ? value : 'NA';
}

export function gatewayRoutes(deps: GatewayDeps): Route[] {
  const { upstream, skills, dispatcher } = deps;
  const route = (method: string, path: string, handler: (ctx: RequestContext) => Promise<void>): Route => ({
    method,
    path,
    service: 'gateway',
    handler,
  });

  async function completionModels(): Promise<ModelInfo[]> {
    const remote = upstream ? await upstream.listChatModels() : [];
    return [LOCAL_CHAT_MODEL_INFO, ...remote.filter((m) => m.id !== LOCAL_CHAT_MODEL)];
  }

  async function embeddingModels(): Promise<ModelInfo[]> {
    const remote = upstream ? (await upstream.listModels()).filter((m) => isEmbeddingModel(m.id)) : [];
    return [LOCAL_EMBEDDING_MODEL_INFO, ...remote.filter((m) => m.id !== LOCAL_EMBEDDING_MODEL)];
  }

  async function respondChat(
    ctx: RequestContext,
    input: ChatInput,
    shape: 'chat' | 'inference',
    headers: Record<string, string>,
    param = 'model',
  ) {
    if (input.model === LOCAL_CHAT_MODEL) return respondLocal(ctx.res, input, shape, headers);
    if (!upstream) throw modelNotFound(input.model, [LOCAL_CHAT_MODEL], param);
    return respondUpstream(ctx.res, upstream, input, shape, headers);
  }

  const chat = async (ctx: RequestContext) => {
    const body = await readJson(ctx.req);
    const input: ChatInput = { ...checkChat(body), body };
    await respondChat(ctx, input, 'chat', { 'x-project-code': projectCodeOf(ctx) });
  };

  const list = (models: ModelInfo[]) => ({ object: 'list', data: models });

  return [
    route('POST', '/v1/chat/completions', chat),
    route('POST', '/v1/completions', chat),
    route('GET', '/v1/completions/models', async (ctx) => sendJson(ctx.res, 200, list(await completionModels()))),
    route('GET', '/v1/embed/models', async (ctx) => sendJson(ctx.res, 200, list(await embeddingModels()))),
    route('GET', '/v1/models', async (ctx) => sendJson(ctx.res, 200, list([...(await completionModels()), ...(await embeddingModels())]))),

    route('POST', '/v1/inference/:model', async (ctx) => {
      const body = await readJson(ctx.req);
      const model = ctx.params.model!;
      const { prompt, systemPrompt, projectCode, ...options } = checkInference(body);
      const messages = [
        { role: 'system', content: systemPrompt ?? 'You are a helpful assistant.' },
        { role: 'user', content: prompt },
      ];
      const input: ChatInput = { model, messages, ...options, body };
      const sunset = sunsetDate();
      await respondChat(
        ctx,
        input,
        'inference',
        {
          deprecation: 'true',
          sunset: sunset.toUTCString(),
          link: '</v1/chat/completions>; rel="successor-version"',
          'x-project-code': projectCode.trim() || 'NA',
        },
        'model',
      );
    }),

    route('POST', '/v1/embed', async (ctx) => embed(ctx)),
    route('POST', '/v1/embeddings', async (ctx) => embed(ctx)),

    route('POST', '/v1/tools/skillshare', async (ctx) => {
      const body = await readJson(ctx.req);
      const query = checkSkillshare(body);
      sendJson(ctx.res, 200, skills.search(query));
    }),

    route('POST', '/v1/tools/web/crawl', async (ctx) => {
      const body = await readJson(ctx.req);
      const urls = checkCrawl(body);
      const abort = new AbortController();
      ctx.res.on('close', () => abort.abort());
      const results = await Promise.all(urls.map((url) => crawlOne(url, deps.convertPage, abort.signal, dispatcher)));
      sendJson(ctx.res, 200, { results });
    }),

    route('POST', '/v1/tools/web/search', async (ctx) => {
      const body = await readJson(ctx.req);
      checkWebSearch(body);
      await forwardTool(ctx, '/tools/web/search', body, 'Web search');
    }),
    route('POST', '/v1/tools/web/research', async (ctx) => {
      const body = await readJson(ctx.req);
      checkResearch(body);
      await forwardTool(ctx, '/tools/web/research', body, 'Web research');
    }),
    route('GET', '/v1/tools/web/research/:researchId', async (ctx) => {
      await forwardTool(ctx, `/tools/web/research/${encodeURIComponent(ctx.params.researchId!)}`, undefined, 'Web research');
    }),
  ];

  async function embed(ctx: RequestContext): Promise<void> {
    const body = await readJson(ctx.req);
    const { model, texts, dimensions, base64 } = checkEmbed(body);
    const encoded = (vector: ArrayLike<number>) => (base64 ? float32Base64(vector) : Array.from(vector));
    if (model === LOCAL_EMBEDDING_MODEL) {
      const size = dimensions ?? LOCAL_EMBEDDING_DEFAULT_DIMENSIONS;
      if (size < 16 || size > LOCAL_EMBEDDING_MAX_DIMENSIONS) {
        throw invalid(
          'dimensions',
          `${LOCAL_EMBEDDING_MODEL} supports 16 to ${LOCAL_EMBEDDING_MAX_DIMENSIONS} dimensions.`,
          'out_of_range',
        );
      }
      const tokens = texts.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
      sendJson(ctx.res, 200, {
        object: 'list',
        data: texts.map((text, index) => ({ object: 'embedding', index, embedding: encoded(hashingEmbedding(text, size)) })),
        model: LOCAL_EMBEDDING_MODEL,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
      return;
    }
    if (!upstream) throw modelNotFound(model, [LOCAL_EMBEDDING_MODEL]);
    const result = await upstream.embeddings({
      model,
      input: texts,
      ...(dimensions ? { dimensions } : {}),
    });
    const tokens = texts.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
    sendJson(ctx.res, 200, {
      object: 'list',
      data: result.data.map((d, i) => ({ object: 'embedding', index: d.index ?? i, embedding: encoded(d.embedding) })),
      model,
      usage: result.usage ?? { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  /** OpenAI's base64 form of an embedding: its numbers as little-endian float32 bytes. */
  function float32Base64(vector: ArrayLike<number>): string {
    const bytes = Buffer.alloc(vector.length * 4);
    for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
    return bytes.toString('base64');
  }

  async function forwardTool(ctx: RequestContext, path: string, body: unknown, what: string): Promise<void> {
    if (!upstream?.isCompanyGateway) {
      // Nothing upstream, or a model server (which has no web tools): the company gateway is
      // missing. One sentence; the client knows the case by its code and words it in the user's
      // language.
      throw new ApiError({
        type: 'not_implemented',
        code: LOCAL_MODE_TOOL,
        message: `${what} needs your company's gateway; DocChat's Local mode has none.`,
      });
    }
    const response = await upstream.request(path, body === undefined ? {} : { body });
    if ((response.status === 404 && body !== undefined) || response.status === 405) {
      throw notImplemented(`${what} is not available: the upstream server ${upstream.base} does not provide ${path}.`);
    }
    if (!response.ok) throw await upstream.failure(response);
    sendJson(ctx.res, response.status, await response.json());
  }
}
