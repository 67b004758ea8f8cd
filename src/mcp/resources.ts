/**
 * The files of the vector stores as MCP resources, so a user can browse and attach a company
 * document in an editor's chat and an agent can read one by URI: a resource template per store,
 * `resources/list` page by page over every store's searchable files, and `resources/read` giving
 * a file's converted text (markdown) in pages. No `vscode` import.
 */
import {
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import type { DocumentsClient } from '../api/documents/client';
import { DocChatError } from '../api/http/errors';
import { LIMITS } from '../api/documents/schemas';
import type { DocumentsCatalog } from './catalog';
import { ConvertedTextTooLargeError } from './convertedText';
import { fileResourceUri, parseFileResourceUri, storeResourceTemplate } from './resourceUris';
import { type BoundedWaits, failureSentence, ToolInputError } from './toolCalls';

/** Characters of converted text per page of a resource (an attached document mostly fits in one). */
export const RESOURCE_PAGE_CHARS = 50_000;
/** Most resources one `resources/list` page holds. */
export const RESOURCE_LIST_PAGE = 100;
/** Stores without a searchable file skipped in one `resources/list` call before it returns a cursor. */
const EMPTY_STORES_PER_PAGE = 20;
/** How long the file names of one listing serve the next pages. */
const FILE_NAMES_TTL_MS = 30_000;

export interface ResourceDeps {
  documents(): Promise<DocumentsClient>;
  waits: BoundedWaits;
  catalog: DocumentsCatalog;
}

interface ListCursor {
  /** The store to continue with. */
  s: string;
  /** The last file id listed of it. */
  a?: string;
}

function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): ListCursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<ListCursor>;
    if (typeof value.s === 'string' && (value.a === undefined || typeof value.a === 'string')) return { s: value.s, a: value.a };
  } catch {
    // reported below
  }
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'The cursor is not one this server gave: list the resources again from the start.',
  );
}

/** A failure of the documents service as the protocol error a client shows: the UI's sentence. */
function protocolFailure(error: unknown, uri?: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  // A file too large to serve is there: the sentence names the limit.
  if (error instanceof ConvertedTextTooLargeError) return new ProtocolError(ProtocolErrorCode.InternalError, failureSentence(error));
  if (
    uri &&
    (error instanceof ToolInputError || (error instanceof DocChatError && (error.kind === 'not_found' || error.kind === 'validation')))
  ) {
    return new ResourceNotFoundError(uri, `No DocChat file is at ${uri}: ${failureSentence(error)}`);
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, failureSentence(error));
}

export function registerResources(server: McpServer, deps: ResourceDeps): void {
  let names: { at: number; byId: Promise<Map<string, string>> } | undefined;
  const fileNames = (documents: DocumentsClient, signal: AbortSignal) => {
    if (!names || Date.now() - names.at > FILE_NAMES_TTL_MS) {
      const byId = documents
        .listFiles({ limit: LIMITS.listLimit.max }, { signal })
        .then((page) => new Map(page.data.map((f) => [f.id, f.filename || f.id])));
      byId.catch(() => (names = undefined));
      names = { at: Date.now(), byId };
    }
    return names.byId;
  };
  const run = <T>(signal: AbortSignal, uri: string | undefined, body: (documents: DocumentsClient, signal: AbortSignal) => Promise<T>) =>
    deps.waits
      .run(signal, async (combined) => body(await deps.documents(), combined))
      .catch((error: unknown) => {
        throw protocolFailure(error, uri);
      });

  server.server.registerCapabilities({ resources: { listChanged: false } });

  server.server.setRequestHandler('resources/templates/list', (_request, ctx) =>
    run(ctx.mcpReq.signal, undefined, async (documents, signal): Promise<ListResourceTemplatesResult> => {
      const stores = await deps.catalog.stores(documents, signal);
      return {
        resourceTemplates: stores.map((store) => ({
          uriTemplate: storeResourceTemplate(store.id),
          name: `docchat-${store.id}`,
          title: store.name,
          description: `A file of the DocChat vector store "${store.name}" (store id ${store.id}): its converted text in markdown, in pages of ${RESOURCE_PAGE_CHARS.toLocaleString('en-US')} characters. file_id is a file id from docchat_list_files or docchat_search.`,
          mimeType: 'text/markdown',
        })),
      };
    }),
  );

  server.server.setRequestHandler('resources/list', (request, ctx) =>
    run(ctx.mcpReq.signal, undefined, async (documents, signal): Promise<ListResourcesResult> => {
      const stores = await deps.catalog.stores(documents, signal);
      const cursor = request.params?.cursor ? decodeCursor(request.params.cursor) : undefined;
      let index = cursor ? stores.findIndex((s) => s.id === cursor.s) : 0;
      if (index < 0) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'The vector store this cursor continues with no longer exists: list the resources again from the start.',
        );
      }
      let after = cursor?.a;
      const resources: ListResourcesResult['resources'] = [];
      for (let visited = 0; index < stores.length && visited < EMPTY_STORES_PER_PAGE; visited++) {
        const store = stores[index]!;
        const [page, byId] = await Promise.all([
          documents.listVectorStoreFiles(store.id, { limit: RESOURCE_LIST_PAGE, ...(after ? { after } : {}) }, { signal }),
          fileNames(documents, signal),
        ]);
        for (const file of page.data) {
          if (file.status !== 'completed') continue; // only searchable files have converted text
          const name = byId.get(file.id) ?? file.id;
          resources.push({
            uri: fileResourceUri(store.id, file.id),
            name,
            title: name,
            description: `In the DocChat vector store "${store.name}".`,
            mimeType: 'text/markdown',
          });
        }
        if (page.hasMore && page.data.length) {
          return { resources, nextCursor: encodeCursor({ s: store.id, a: page.data[page.data.length - 1]!.id }) };
        }
        index++;
        after = undefined;
        if (resources.length) break;
      }
      return { resources, ...(index < stores.length ? { nextCursor: encodeCursor({ s: stores[index]!.id }) } : {}) };
    }),
  );

  server.server.setRequestHandler('resources/read', (request, ctx) => {
    const uri = request.params.uri;
    const ref = parseFileResourceUri(uri);
    if (typeof ref === 'string') throw new ResourceNotFoundError(uri, ref);
    return run(ctx.mcpReq.signal, uri, async (documents, signal): Promise<ReadResourceResult> => {
      const stores = await deps.catalog.stores(documents, signal);
      const store = stores.find((s) => s.id === ref.storeId) ?? (await deps.catalog.findStore(documents, ref.storeId, signal));
      const [content, name] = await Promise.all([
        deps.catalog.convertedText.read(documents, store.id, ref.fileId, signal),
        deps.catalog.fileNames.lookup(documents, ref.fileId, signal),
      ]);
      const pages = content.pageCount(RESOURCE_PAGE_CHARS);
      const page = ref.page ?? 1;
      if (page > pages) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Page ${page} is past the end: ${name ?? ref.fileId} has ${pages} page${pages === 1 ? '' : 's'} of ${RESOURCE_PAGE_CHARS.toLocaleString('en-US')} characters.`,
        );
      }
      let text = content.page(RESOURCE_PAGE_CHARS, page);
      if (pages > 1) {
        const next = page < pages ? ` It continues at ${fileResourceUri(store.id, ref.fileId, page + 1)}.` : '';
        text = `[${name ?? ref.fileId}, page ${page} of ${pages}.${next}]\n\n${text}`;
      }
      return {
        contents: [
          {
            uri: fileResourceUri(store.id, ref.fileId, page),
            mimeType: 'text/markdown',
            text,
            _meta: { 'docchat/fileName': name ?? ref.fileId, 'docchat/page': page, 'docchat/pages': pages },
          },
        ],
      };
    });
  });
}
