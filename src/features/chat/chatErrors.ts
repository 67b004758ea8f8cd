/**
 * Turns any failure of an answer into the inline error the webview shows: one sentence and the
 * way forward (Retry, Set API Key / Set Token, Open Output). No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { DocChatError, RateLimitError } from '../../api/http/errors';
import type { ChatErrorInfo, ErrorAction } from '../../chatCore/protocol';
import { LOCAL_CHAT_MODEL } from '../../api/gateway/models';

export type FailedService = 'gateway' | 'documents';

/** Known to come and go (see the gateway document). */
const FLAKY_MODELS = ['gamma-4-fast-reasoning'];

export function formatWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return seconds < 120 ? l10n.t('{0} s', seconds) : l10n.t('{0} min', Math.ceil(seconds / 60));
}

/** The server has no such model (HTTP 404 `model_not_found`), as opposed to one that is down for now. */
function isModelNotServed(error: DocChatError): boolean {
  return error.kind === 'not_found' && (error.code === 'model_not_found' || /\bmodel\b/i.test(error.message));
}

function looksLikeModelUnavailable(error: DocChatError, model: string | undefined): boolean {
  const text = `${error.message} ${error.code ?? ''} ${error.type ?? ''}`.toLowerCase();
  const mentionsModel = text.includes('model') || (model !== undefined && text.includes(model.toLowerCase()));
  if (error.kind === 'not_found' && mentionsModel) {
    return true;
  }
  if (error.status === 503 || text.includes('unavailable') || text.includes('model_not_found')) {
    return mentionsModel || (model !== undefined && FLAKY_MODELS.includes(model));
  }
  return false;
}

/**
 * A stream that ended (`[DONE]`) with no text and no finish reason: some servers report a failure
 * that way, so it is shown as one rather than as an empty answer.
 */
export function emptyAnswerError(model: string): ChatErrorInfo {
  return {
    kind: 'empty',
    message: l10n.t('The model {0} returned nothing. Retry, or pick another model.', model),
    actions: ['retry', 'showOutput'],
  };
}

/**
 * A reasoning model that reasoned and gave no answer: `cutOff`, its token limit was reached while
 * it reasoned (otherwise an empty answer "cut off at the token limit" would say nothing of why).
 */
export function reasonedOnlyError(model: string, cutOff: boolean): ChatErrorInfo {
  return {
    kind: 'empty',
    message: cutOff
      ? l10n.t(
          "The model {0} reached its token limit while reasoning, before any answer. Retry, or raise Max tokens in the chat's settings (the gear).",
          model,
        )
      : l10n.t('The model {0} reasoned but returned no answer. Retry, or pick another model.', model),
    actions: ['retry', 'showOutput'],
  };
}

/**
 * A request to Local mode's own backend could not connect: the backend stopped (the user set no
 * URL, so none is named). The way forward starts it again and asks again.
 */
export function localBackendStoppedError(): ChatErrorInfo {
  return {
    kind: 'network',
    message: l10n.t("DocChat's local backend stopped, so the question could not be answered. Restart it to ask again."),
    actions: ['restartLocalBackend', 'showOutput'],
  };
}

/** The language-model server Local mode forwards chat to (chosen with "Use a Language Model…"). */
export interface LocalModelServer {
  /** Its OpenAI-compatible base URL. */
  url: string;
  /** What it is ("vLLM", "Ollama", …) or its host. */
  name: string;
}

/** What a request's content can be refused for (its length, its tools, its parameters), not the model. */
const ABOUT_CONTENT = /\btools?\b|function|context|token|too (long|large|many)|length|max_|temperature|parameter|messages?\b/i;

/** A refusal that names no model but says the model cannot (vLLM: "The model does not support Chat Completions API"). */
const SAYS_MODEL_CANNOT = /\b(the|this) model (does not|doesn't|cannot|can't|is not able to) support\b|\bnot a chat model\b/i;

/**
 * A 4xx refusal that is about the model itself ("whisper-1" does not support chat): the server
 * named the model, or the `model` parameter, and not something of the request's content. Asking
 * again fails the same way; another model is the way forward.
 */
function refusedModelReason(error: DocChatError, model: string | undefined): string | undefined {
  if (error.kind !== 'validation' || !model || model === LOCAL_CHAT_MODEL) return undefined;
  const reason = error.message
    .replace(/^Upstream server:\s*/i, '')
    .trim()
    .replace(/\.$/, '');
  const aboutModel = error.param === 'model' || reason.toLowerCase().includes(model.toLowerCase()) || SAYS_MODEL_CANNOT.test(reason);
  return aboutModel && !ABOUT_CONTENT.test(reason.replaceAll(model, '')) ? reason : undefined;
}

/** Local mode's model server could not be reached (the backend itself answered). */
function modelServerDown(error: DocChatError, server: LocalModelServer | undefined): boolean {
  return server !== undefined && error.code === 'upstream_unreachable';
}

/**
 * The server refused `model` for chat, for `reason`. Retry would only fail again: another model
 * (or, in Local mode, local-extractive) is the way forward. `local`: Local mode's own backend.
 */
export function refusedModelError(model: string, reason: string, local: boolean): ChatErrorInfo {
  return {
    kind: 'model_unavailable',
    message: l10n.t('{0} cannot answer chat questions: {1}.', model, reason),
    actions: ['chooseModel', ...(local ? (['useLocalExtractive'] as const) : [])],
    unavailable: { reason },
  };
}

/**
 * `local`: the service that failed is Local mode's own backend (not a server the user configured).
 * `modelServer`: the server Local mode's backend forwards chat to, when one is chosen.
 */
export function toChatError(
  error: unknown,
  service: FailedService,
  model?: string,
  local = false,
  modelServer?: LocalModelServer,
): ChatErrorInfo {
  const retry: ErrorAction[] = ['retry'];
  if (!(error instanceof DocChatError)) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'unknown', message: l10n.t('Something went wrong: {0}', message), actions: [...retry, 'showOutput'] };
  }
  const detail = error.hint ? `${error.message} ${error.hint}` : error.message;
  const gateway = service === 'gateway';
  // Local mode answers with local-extractive whatever happens to a model server.
  const backToLocal: ErrorAction[] = local ? ['useLocalExtractive'] : [];
  const refused = gateway ? refusedModelReason(error, model) : undefined;
  if (refused !== undefined && model) {
    return refusedModelError(model, refused, local);
  }
  if (gateway && local && modelServerDown(error, modelServer)) {
    // It may be started again, so Retry is a way forward here.
    const where = modelServer!.url.includes(modelServer!.name) ? modelServer!.url : `${modelServer!.url} (${modelServer!.name})`;
    return {
      kind: 'model_unavailable',
      message: l10n.t('The model server at {0} is not running or not reachable.', where),
      actions: ['retry', ...backToLocal, 'showOutput'],
      unavailable: { reason: l10n.t('server not answering'), server: true },
    };
  }
  if (gateway && isModelNotServed(error)) {
    // The server does not have the model at all: waiting changes nothing, another model does.
    return {
      kind: 'model_unavailable',
      message: model
        ? l10n.t('The model {0} is not served here, so it cannot answer. Choose another model. ({1})', model, detail)
        : l10n.t('The model is not served here, so it cannot answer. Choose another model. ({0})', detail),
      actions: ['chooseModel'],
    };
  }
  if (gateway && looksLikeModelUnavailable(error, model)) {
    return {
      kind: 'model_unavailable',
      message: model
        ? l10n.t('The model {0} is not available right now. Retry in a moment or pick another model. ({1})', model, detail)
        : l10n.t('The model is not available right now. Retry in a moment or pick another model. ({0})', detail),
      actions: [...retry, 'chooseModel'],
    };
  }
  switch (error.kind) {
    case 'auth':
      return {
        kind: 'auth',
        message: gateway
          ? l10n.t('The language-model gateway rejected the credentials. {0}', detail)
          : l10n.t('The documents service (grounding search) rejected the credentials. {0}', detail),
        actions: [gateway ? 'setGatewayApiKey' : 'setDocumentsToken', 'retry'],
      };
    case 'rate_limit': {
      const waitMs = error instanceof RateLimitError ? error.retryAfterMs : undefined;
      let message: string;
      if (waitMs !== undefined) {
        message = gateway
          ? l10n.t('Rate limited by the language-model gateway. Try again in {0}.', formatWait(waitMs))
          : l10n.t('Rate limited by the documents service (grounding search). Try again in {0}.', formatWait(waitMs));
      } else {
        message = gateway
          ? l10n.t('Rate limited by the language-model gateway. Try again shortly.')
          : l10n.t('Rate limited by the documents service (grounding search). Try again shortly.');
      }
      return { kind: 'rate_limit', message, ...(waitMs !== undefined ? { retryAfterMs: waitMs } : {}), actions: retry };
    }
    case 'network':
      if (local) return localBackendStoppedError();
      return {
        kind: 'network',
        message: gateway
          ? l10n.t('Could not reach the language-model gateway. {0}', detail)
          : l10n.t('Could not reach the documents service (grounding search). {0}', detail),
        actions: [...retry, 'showOutput'],
      };
    case 'timeout':
      return {
        kind: 'timeout',
        message: gateway
          ? l10n.t('The language-model gateway did not answer in time. {0}', detail)
          : l10n.t('The documents service (grounding search) did not answer in time. {0}', detail),
        actions: [...retry, 'showOutput'],
      };
    case 'stream':
      return { kind: 'stream', message: l10n.t('The answer broke off: {0}', detail), actions: [...retry, 'showOutput'] };
    case 'validation':
      return { kind: 'invalid_request', message: detail, actions: [...retry, 'showOutput'] };
    default:
      return {
        kind: 'server',
        message: gateway
          ? l10n.t('The language-model gateway failed: {0}', detail)
          : l10n.t('The documents service (grounding search) failed: {0}', detail),
        actions: [...retry, 'showOutput'],
      };
  }
}

/**
 * A conversation grounded in a store that was deleted: said once, with the one way forward (a
 * Retry would only fail again).
 */
export function storeGoneError(stores: ReadonlyArray<{ id: string; name?: string }>): ChatErrorInfo {
  const names = stores.map((s) => `“${s.name ?? s.id}”`);
  return {
    kind: 'store_gone',
    message:
      names.length === 1
        ? l10n.t('The vector store {0} no longer exists (it was deleted). Choose a store for this chat, then ask again.', names[0]!)
        : l10n.t(
            'The vector stores {0} no longer exist (they were deleted). Choose the stores for this chat, then ask again.',
            names.join(', '),
          ),
    actions: ['chooseStore'],
  };
}

/** The stores of `stores` a documents-service "not found" names (all of them when it names none). */
export function goneStoresOf<T extends { id: string }>(error: unknown, stores: readonly T[]): T[] | undefined {
  if (!(error instanceof DocChatError) || error.kind !== 'not_found') return undefined;
  const named = stores.filter((s) => error.message.includes(s.id));
  return named.length ? named : [...stores];
}

/**
 * DocChat's connection failed (Local mode's backend did not start, or stopped too often): the
 * reason, a new start of the backend, and the log.
 */
export function couldNotConnectError(reason: string): ChatErrorInfo {
  return {
    kind: 'not_connected',
    message: l10n.t('DocChat could not connect: {0}', reason),
    actions: ['restartLocalBackend', 'showOutput'],
  };
}

/** Why the chat has no gateway, as the inline error (undefined: it has one). */
export function notConnectedError(reason: 'noApiKey' | 'noUrl' | 'notReady' | undefined): ChatErrorInfo | undefined {
  switch (reason) {
    case 'noApiKey':
      return {
        kind: 'not_connected',
        message: l10n.t('A gateway URL is set but no API key: set the gateway API key to chat.'),
        actions: ['setGatewayApiKey', 'retry'],
      };
    case 'noUrl':
      return {
        kind: 'not_connected',
        message: l10n.t('No language-model gateway is configured: set "docchat.gateway.url" in the settings to chat.'),
        actions: ['openGatewaySettings', 'retry'],
      };
    case 'notReady':
      return {
        kind: 'not_connected',
        message: l10n.t('DocChat is still connecting. Try again in a moment.'),
        actions: ['retry', 'showOutput'],
      };
    default:
      return undefined;
  }
}
