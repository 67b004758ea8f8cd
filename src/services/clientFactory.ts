/**
 * Builds the API clients from settings and secrets. No `vscode` import, so the mapping from
 * settings to client options is unit-tested against a real server.
 */
import type * as DocumentsModule from '../api/documents/client';
import type { DocumentsClient } from '../api/documents/client';
import type * as GatewayModule from '../api/gateway/client';
import type { GatewayClient } from '../api/gateway/client';
import { DEFAULT_OCR_LANGUAGES, OCR_LANGUAGES, ocrLanguagesError } from '../common/ocrLanguages';
import { atFirstUse } from '../common/atFirstUse';
import type { LogLevel } from '../common/log';
import type { LocalNetwork } from './localBackend';
import type { DocChatSettings } from './settingsModel';

// The clients, their schemas and zod load when DocChat first connects, not when it activates.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const documentsModule = atFirstUse(() => require('../api/documents/client') as typeof DocumentsModule);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const gatewayModule = atFirstUse(() => require('../api/gateway/client') as typeof GatewayModule);

export interface Endpoint {
  readonly url: string;
  readonly token: string;
}

export interface ClientHooks {
  onRateLimitWait?: (e: { operation: string; waitMs: number }) => void;
  /** Local mode: restarts a backend that stopped; resolves true once it answers again. */
  onUnreachable?: () => Promise<boolean>;
  log?: (level: LogLevel, message: string) => void;
  userAgent?: string;
  /** false: no client-side per-minute limits (Local mode's own backend has none); a 429 is still honoured. */
  rateLimits?: false;
}

/**
 * The network settings (proxy, exemptions, certificates) as the HTTP layer takes them; the one
 * mapping, used by the extension's clients and handed to the local backend for its own calls.
 */
export function networkOptions(settings: DocChatSettings): LocalNetwork {
  const n = settings.network;
  return {
    proxy: n.proxy,
    noProxy: n.noProxy,
    proxyAuthorization: n.proxyAuthorization,
    strictSSL: n.strictSSL,
    systemCertificates: n.systemCertificates,
    caFiles: n.caFiles,
  };
}

/**
 * The OCR languages the local backend is started with: undefined for its default (every shipped
 * language, in order), else the shipped ones of the setting; `error` names the shipped languages
 * when the setting has one that is not.
 */
export function localOcrLanguages(settings: DocChatSettings): { languages?: string[]; error?: string } {
  const error = ocrLanguagesError(settings.ocrLanguages);
  const shipped = [...new Set(settings.ocrLanguages.filter((language) => Object.hasOwn(OCR_LANGUAGES, language)))];
  const isDefault = !shipped.length || shipped.join(',') === DEFAULT_OCR_LANGUAGES.join(',');
  return { languages: isDefault ? undefined : shipped, error };
}

export function transportOptions(settings: DocChatSettings, userAgent?: string) {
  return { ...networkOptions(settings), allowInsecureHttp: settings.network.allowInsecureHttp, userAgent };
}

/** What both clients take from the settings, the endpoint and the connection's hooks. */
function clientOptions(settings: DocChatSettings, endpoint: Endpoint, hooks: ClientHooks) {
  return {
    baseUrl: endpoint.url,
    token: endpoint.token,
    transport: transportOptions(settings, hooks.userAgent),
    onRateLimitWait: hooks.onRateLimitWait,
    onUnreachable: hooks.onUnreachable,
    ...(hooks.rateLimits === false ? { rateLimits: false } : {}),
    log: hooks.log,
  };
}

export function createDocumentsClient(settings: DocChatSettings, endpoint: Endpoint, hooks: ClientHooks = {}): DocumentsClient {
  return new (documentsModule().DocumentsClient)({
    ...clientOptions(settings, endpoint, hooks),
    skipOcrField: settings.skipOcrField,
    fileIdsField: settings.fileIdsField,
  });
}

export function createGatewayClient(settings: DocChatSettings, endpoint: Endpoint, hooks: ClientHooks = {}): GatewayClient {
  return new (gatewayModule().GatewayClient)({
    ...clientOptions(settings, endpoint, hooks),
    projectCode: settings.projectCode,
  });
}

export type ConnectionPlan =
  /** No documents URL: the embedded backend serves documents (and the gateway unless one is set). */
  | { kind: 'local'; gateway: Endpoint | 'local' | undefined }
  /** A documents URL and a token. */
  | { kind: 'remote'; documents: Endpoint; gateway: Endpoint | undefined }
  /** A documents URL but no token yet. */
  | { kind: 'signedOut'; documentsUrl: string; gateway: Endpoint | undefined };

export interface StoredSecrets {
  documentsToken?: string;
  gatewayApiKey?: string;
}

/**
 * Decides where each client points. The gateway follows the documents side unless a gateway URL
 * is configured; a configured gateway needs its own API key.
 */
export function planConnection(settings: DocChatSettings, secrets: StoredSecrets): ConnectionPlan {
  const configuredGateway =
    settings.gatewayUrl && secrets.gatewayApiKey ? { url: settings.gatewayUrl, token: secrets.gatewayApiKey } : undefined;
  if (!settings.documentsUrl) {
    return { kind: 'local', gateway: settings.gatewayUrl ? configuredGateway : 'local' };
  }
  if (!secrets.documentsToken) {
    return { kind: 'signedOut', documentsUrl: settings.documentsUrl, gateway: configuredGateway };
  }
  return { kind: 'remote', documents: { url: settings.documentsUrl, token: secrets.documentsToken }, gateway: configuredGateway };
}
