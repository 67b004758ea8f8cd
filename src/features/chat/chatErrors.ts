/**
 * Turns any failure of an answer into the inline error the webview shows: one sentence and the
 * way forward (Retry, Set API Key / Set Token, Open Output). No `vscode` import.
 */
import { DocChatError, RateLimitError } from '../../api/http/errors';
import type { ChatErrorInfo, ErrorAction } from '../../chatCore/protocol';

export type FailedService = 'gateway' | 'documents';

/** Known to come and go (see the gateway document). */
const FLAKY_MODELS = ['gamma-4-fast-reasoning'];

export function isAbort(error: unknown): boolean {
  return (error instanceof DocChatError && error.kind === 'aborted') || (error instanceof Error && error.name === 'AbortError');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function formatWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
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

export function toChatError(error: unknown, service: FailedService, model?: string): ChatErrorInfo {
  const retry: ErrorAction[] = ['retry'];
  if (!(error instanceof DocChatError)) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'unknown', message: `Something went wrong: ${message}`, actions: [...retry, 'showOutput'] };
  }
  const detail = error.hint ? `${error.message} ${error.hint}` : error.message;
  const where = service === 'gateway' ? 'the language-model gateway' : 'the documents service (grounding search)';
  if (service === 'gateway' && looksLikeModelUnavailable(error, model)) {
    return {
      kind: 'model_unavailable',
      message: `${model ? `The model ${model}` : 'The model'} is not available right now. Retry in a moment or pick another model. (${detail})`,
      actions: retry,
    };
  }
  switch (error.kind) {
    case 'auth':
      return {
        kind: 'auth',
        message: `${capitalize(where)} rejected the credentials. ${detail}`,
        actions: [service === 'gateway' ? 'setGatewayApiKey' : 'setDocumentsToken', 'retry'],
      };
    case 'rate_limit': {
      const waitMs = error instanceof RateLimitError ? error.retryAfterMs : undefined;
      const wait = waitMs !== undefined ? ` Try again in ${formatWait(waitMs)}.` : ' Try again shortly.';
      return {
        kind: 'rate_limit',
        message: `Rate limited by ${where}.${wait}`,
        ...(waitMs !== undefined ? { retryAfterMs: waitMs } : {}),
        actions: retry,
      };
    }
    case 'network':
      return { kind: 'network', message: `Could not reach ${where}. ${detail}`, actions: [...retry, 'showOutput'] };
    case 'timeout':
      return { kind: 'timeout', message: `${capitalize(where)} did not answer in time. ${detail}`, actions: [...retry, 'showOutput'] };
    case 'stream':
      return { kind: 'stream', message: `The answer broke off: ${detail}`, actions: [...retry, 'showOutput'] };
    case 'validation':
      return { kind: 'invalid_request', message: detail, actions: [...retry, 'showOutput'] };
    default:
      return { kind: 'server', message: `${capitalize(where)} failed: ${detail}`, actions: [...retry, 'showOutput'] };
  }
}
