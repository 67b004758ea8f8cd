import { DocumentsClient } from '../../../src/api/documents/client';
import { GatewayClient } from '../../../src/api/gateway/client';
import { startTestBackend as startRawBackend, type TestBackend as RawBackend } from '../backend/helpers';
import { startResearchServer, type ResearchServer } from '../../support/servers/researchServer';

export const TOKEN = 'features-token-4d1e';

export interface TestBackend {
  url: string;
  client: DocumentsClient;
  stop(): Promise<void>;
}

/**
 * The embedded backend (src/backend) on a random 127.0.0.1 port with a fresh data folder, and a
 * DocumentsClient for it. Rate limits are off unless asked for, so tests never wait for a bucket.
 */
export async function startTestBackend(options: { rateLimits?: boolean } = {}): Promise<TestBackend> {
  const server = await startRawBackend({ token: TOKEN, apiKey: TOKEN, rateLimits: options.rateLimits ?? false });
  const client = new DocumentsClient({ baseUrl: server.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } });
  return {
    url: server.url,
    client,
    async stop() {
      await client.close();
      await server.close();
    },
  };
}

export const encode = (text: string) => new TextEncoder().encode(text);

/** Uploads a text file and attaches it; resolves when the conversion finished. */
export async function attachText(client: DocumentsClient, storeId: string, filename: string, text: string) {
  const file = await client.uploadFile({ filename, data: encode(text) });
  await client.attachFile(storeId, { file_id: file.id });
  const done = await client.waitUntilProcessed(storeId, file.id, { initialDelayMs: 10, maxDelayMs: 50 });
  return { file, storeFile: done };
}

/** The embedded backend without an upstream, a gateway client for it and a server of web pages. */
export interface ToolsBackend {
  backend: RawBackend;
  pages: ResearchServer;
  gateway: GatewayClient;
}

/** Starts a `ToolsBackend` before the suite's tests and closes it after them (the gateway tools' tests). */
export function useToolsBackend(): ToolsBackend {
  const apiKey = 'tools-key-51aa';
  const fixture = {} as ToolsBackend;
  before(async () => {
    fixture.backend = await startRawBackend({ token: apiKey, apiKey, rateLimits: false });
    fixture.pages = await startResearchServer();
    fixture.gateway = new GatewayClient({ baseUrl: fixture.backend.url, token: apiKey, rateLimits: false, transport: { maxRetries: 0 } });
  });
  after(async () => {
    await fixture.gateway.close();
    await fixture.backend.close();
    await fixture.pages.close();
  });
  return fixture;
}
