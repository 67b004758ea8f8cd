import { DEFAULT_OCR_LANGUAGES } from '../common/ocrLanguages';
import { Settings, type SettingKey } from '../common/constants';
import type { SkipOcrMode } from '../common/conversionChoice';

/**
 * The settings DocChat reads, as plain values. No `vscode` import: the client factory's
 * decisions (which URL, which proxy, which token) are unit-tested from here.
 */

export type { SkipOcrMode };

export interface NetworkSettings {
  /** Explicit proxy URL (DocChat's own setting wins over VS Code's `http.proxy`). */
  proxy: string | undefined;
  noProxy: string[];
  /** VS Code's `http.proxyAuthorization`, sent as `Proxy-Authorization` (never logged). */
  proxyAuthorization: string | undefined;
  strictSSL: boolean;
  /** VS Code's `http.systemCertificates`: trust the operating system's store too. */
  systemCertificates: boolean;
  caFiles: string[];
  allowInsecureHttp: boolean;
}

export interface DocChatSettings {
  documentsUrl: string;
  gatewayUrl: string;
  projectCode: string;
  defaultModel: string;
  /** Embedding model of the gateway that Local mode's hybrid search uses ('' = the default). */
  embeddingModel: string;
  pageSize: number;
  searchMaxResults: number;
  skipOcrField: string;
  fileIdsField: string;
  attachSkipOcr: SkipOcrMode;
  /**
   * Local mode: the languages OCR reads scans and pictures in, as given (an unknown one is
   * reported by the connection); every shipped language when the setting is empty.
   */
  ocrLanguages: string[];
  /** What the chat panel's screen-reader live region reads of an answer. */
  announceAnswers: 'asTheyStream' | 'whenDone' | 'off';
  /** Local mode: whether "Use a Language Model…" looks for model servers on this machine's usual ports. */
  detectModelServers: boolean;
  /** Whether DocChat's MCP server offers agents the tools that attach files and change metadata. */
  mcpAllowChanges: boolean;
  network: NetworkSettings;
}

/** Raw values as VS Code returns them (any of them may be missing or of the wrong type). */
export interface RawSettings {
  docchat: Partial<Record<SettingKey, unknown>>;
  httpProxy?: unknown;
  httpNoProxy?: unknown;
  httpProxyStrictSSL?: unknown;
  httpProxyAuthorization?: unknown;
  httpSystemCertificates?: unknown;
}

export const DEFAULTS = {
  projectCode: 'NA',
  pageSize: 50,
  searchMaxResults: 10,
  skipOcrField: 'skip_ocr',
  fileIdsField: 'file_ids',
} as const;

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value.trim() : fallback;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()) : [];
}

function int(value: unknown, fallback: number, min: number, max: number): number {
  const n = typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback;
  return Math.min(max, Math.max(min, n));
}

/** Normalises what VS Code returned into settings the services can rely on. */
export function normaliseSettings(raw: RawSettings): DocChatSettings {
  const d = raw.docchat;
  const skip = d[Settings.attachSkipOcr];
  const announce = d[Settings.announceAnswers];
  return {
    documentsUrl: stripTrailingSlash(str(d[Settings.documentsUrl])),
    gatewayUrl: stripTrailingSlash(str(d[Settings.gatewayUrl])),
    projectCode: str(d[Settings.projectCode]) || DEFAULTS.projectCode,
    defaultModel: str(d[Settings.defaultModel]),
    embeddingModel: str(d[Settings.embeddingModel]),
    pageSize: int(d[Settings.pageSize], DEFAULTS.pageSize, 1, 10000),
    searchMaxResults: int(d[Settings.searchResultCount], DEFAULTS.searchMaxResults, 1, 50),
    skipOcrField: str(d[Settings.skipOcrField]) || DEFAULTS.skipOcrField,
    fileIdsField: str(d[Settings.fileIdsField]) || DEFAULTS.fileIdsField,
    attachSkipOcr: skip === 'always' || skip === 'never' ? skip : 'ask',
    ocrLanguages: strings(d[Settings.attachOcrLanguages]).length ? strings(d[Settings.attachOcrLanguages]) : [...DEFAULT_OCR_LANGUAGES],
    announceAnswers: announce === 'whenDone' || announce === 'off' ? announce : 'asTheyStream',
    detectModelServers: d[Settings.detectModelServers] !== false,
    mcpAllowChanges: d[Settings.mcpAllowChanges] === true,
    network: {
      proxy: str(d[Settings.proxy]) || str(raw.httpProxy) || undefined,
      // NO_PROXY is added to this list (not replaced by it) where the dispatcher reads the environment.
      noProxy: strings(raw.httpNoProxy),
      proxyAuthorization: str(raw.httpProxyAuthorization) || undefined,
      // Either switch turned off disables verification: VS Code's applies to its proxy support,
      // ours to DocChat's own connections.
      strictSSL: d[Settings.strictSSL] !== false && raw.httpProxyStrictSSL !== false,
      systemCertificates: raw.httpSystemCertificates !== false,
      caFiles: strings(d[Settings.caFiles]),
      allowInsecureHttp: d[Settings.allowInsecureHttp] === true,
    },
  };
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

export type ConnectionMode = 'local' | 'remote';

/** Local mode whenever no documents URL is configured. */
export function connectionModeOf(settings: DocChatSettings): ConnectionMode {
  return settings.documentsUrl ? 'remote' : 'local';
}

/**
 * The model a chat starts with: the setting, else — when the chat goes to the embedded backend's
 * gateway (Local mode without a gateway URL) — the model picked with "Use a Language Model…".
 */
export function configuredChatModel(settings: DocChatSettings, localPick: string | undefined): string {
  const localGateway = connectionModeOf(settings) === 'local' && !settings.gatewayUrl;
  return settings.defaultModel || (localGateway ? (localPick ?? '') : '');
}

/** Short host label for the status bar ("docs.example.com", "10.0.0.2:8080"). */
export function hostLabel(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** Which settings changes require the clients to be rebuilt. */
export const CLIENT_SETTING_KEYS: readonly SettingKey[] = [
  Settings.documentsUrl,
  Settings.gatewayUrl,
  Settings.projectCode,
  Settings.embeddingModel,
  Settings.skipOcrField,
  Settings.fileIdsField,
  Settings.attachOcrLanguages,
  Settings.allowInsecureHttp,
  Settings.caFiles,
  Settings.proxy,
  Settings.strictSSL,
];
