import type { Endpoint } from './clientFactory';
import { DEFAULT_GATEWAY_EMBEDDING_MODEL, type LocalUpstream } from './localBackend';
import type { DocChatSettings } from './settingsModel';

/**
 * What the Local-mode backend forwards to, decided in one place:
 * - a company gateway configured beside Local mode: its embeddings (hybrid search) and models;
 * - else the language-model server the user chose with "Use a Language Model…": its models chat;
 * - else nothing (`local-extractive` only).
 * The backend is (re)started with the result; a backend running in another process would take
 * the same value as its `--upstream` options.
 */
export function localUpstream(
  gateway: 'local' | Endpoint | undefined,
  settings: Pick<DocChatSettings, 'embeddingModel'>,
  modelServer: { url: string; key?: string } | undefined,
): LocalUpstream | undefined {
  if (gateway && gateway !== 'local') {
    return {
      url: gateway.url,
      key: gateway.token,
      embeddingModel: settings.embeddingModel || DEFAULT_GATEWAY_EMBEDDING_MODEL,
      embedPath: '/embed',
    };
  }
  if (gateway === 'local' && modelServer) {
    return { url: modelServer.url, ...(modelServer.key ? { key: modelServer.key } : {}) };
  }
  return undefined;
}
