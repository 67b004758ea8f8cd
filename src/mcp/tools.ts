/**
 * The tools of DocChat's MCP server: read-only by default (list stores, list a store's files,
 * search a store, read a file's converted text in pages); attaching a file and changing metadata
 * only when the user allowed changes. Each is described for the model that reads it: when to use
 * it, what it returns, its limits. No `vscode` import.
 */
import { type CallToolResult, type McpServer, PROTOCOL_VERSION_META_KEY, type ServerContext } from '@modelcontextprotocol/server';
import * as l10n from '@vscode/l10n';
import { z } from 'zod';
import type { DocumentsClient } from '../api/documents/client';
import { LIMITS } from '../api/documents/schemas';
import { DocChatError } from '../api/http/errors';
import { searchPassages } from '../chatCore/grounding';
import { locatePassage } from '../chatCore/passageLocate';
import { findWords } from '../chatCore/quoteLocate';
import { type DocumentsCatalog, MAX_LISTED } from './catalog';
import { listedSchema } from './listedSchema';
import { searchResourceLinks, searchResultText } from './searchResult';
import { type BoundedWaits, toolError, ToolInputError } from './toolCalls';

/** Characters of converted text per page of `docchat_read_file`. */
export const READ_PAGE_CHARS = 10_000;

export const ToolNames = {
  listStores: 'docchat_list_stores',
  listFiles: 'docchat_list_files',
  search: 'docchat_search',
  readFile: 'docchat_read_file',
  attachFile: 'docchat_attach_file',
  setFileMetadata: 'docchat_set_file_metadata',
} as const;

export interface ToolDeps {
  /** The documents client, once the service is reachable (Local mode may start the backend first). */
  documents(): Promise<DocumentsClient>;
  waits: BoundedWaits;
  allowChanges: boolean;
  catalog: DocumentsCatalog;
}

const storeInput = z
  .string()
  .trim()
  .min(1, { error: 'The store must not be empty: give a vector store name or id from docchat_list_stores.' })
  .max(200, { error: 'The store must be at most 200 characters: give a vector store name or id.' })
  .describe('Name or id of the vector store (from docchat_list_stores).');
const fileIdInput = z
  .string()
  .trim()
  .min(1, { error: 'The file id must not be empty.' })
  .max(200, { error: 'The file id must be at most 200 characters.' })
  .describe('Id of the file (file_id in the results of docchat_list_files or docchat_search).');

const storeOutput = { store_id: z.string(), store_name: z.string() };
const passageOutput = z.object({
  file_id: z.string(),
  file_name: z.string(),
  store_id: z.string(),
  store_name: z.string(),
  score: z.number(),
  content: z.string(),
});

/** Of `near`, the words and the lines looked for: enough to tell a passage apart, bounded in time. */
const NEAR_WORDS = 64;
const NEAR_LINES = 40;
/** Other places of the same text named in the result, at most. */
const NEAR_OTHER_PAGES = 5;

/**
 * Where `near` (a line of a search passage, or the passage) is in a file's converted text, and how
 * many times: its first NEAR_WORDS words in order, as whole words, across line breaks and indents
 * (each place counted); else its first NEAR_LINES lines as the source opener finds a passage (a
 * chunk may open with its section's heading, far above its own text). Undefined when neither is found.
 */
export function textPlaces(text: string, near: string): number[] | undefined {
  const words = near.trim().split(/\s+/).slice(0, NEAR_WORDS).join(' ');
  const places: number[] = [];
  for (let from = 0; from < text.length && places.length <= NEAR_OTHER_PAGES * 20;) {
    const span = findWords(text, words, from, text.length, true);
    if (!span) break;
    places.push(span.start);
    from = Math.max(span.end, span.start + 1);
  }
  if (places.length) return places;
  const lines = near
    .split(/\r?\n/)
    .filter((line) => line.trim())
    .slice(0, NEAR_LINES)
    .join('\n');
  const passage = locatePassage(text, lines);
  return passage ? [passage.start] : undefined;
}

/** What the header of a page read for `near` says of where the text is. */
function nearNote(pages: readonly number[], page: number): string {
  if (!pages.length) return ' (the text given as near is not in the file: this is page 1)';
  const others = [...new Set(pages)].filter((p) => p !== page);
  if (!others.length) {
    return pages.length > 1
      ? ` (the page holding the text given as near, ${pages.length} times)`
      : ' (the page holding the text given as near)';
  }
  const shown = others.slice(0, NEAR_OTHER_PAGES).join(', ');
  return ` (the first page holding the text given as near; it is also on page${others.length === 1 ? '' : 's'} ${shown}${others.length > NEAR_OTHER_PAGES ? ', …' : ''})`;
}

/**
 * A result for the model: readable text, and the structured content its output schema declares,
 * also serialized as text (as the specification asks of tools with structured content, for the
 * hosts that pass the model the text alone).
 */
function ok(text: string, structuredContent: Record<string, unknown>): CallToolResult {
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: JSON.stringify(structuredContent) },
    ],
    structuredContent,
  };
}

/**
 * A result whose text already carries every field of the structured content, document text
 * included (search passages, a page of a file): serializing it again would double what the model
 * reads for nothing.
 */
function complete(text: string, structuredContent: Record<string, unknown>, extra: CallToolResult['content'] = []): CallToolResult {
  return { content: [{ type: 'text', text }, ...extra], structuredContent };
}

/** How many of a search's file ids are looked up at once when it found nothing. */
const FILE_CHECKS_AT_ONCE = 4;

/** The first protocol revision with `resource_link` content: a client of an earlier one refuses a result holding one. */
export const RESOURCE_LINKS_SINCE = '2025-06-18';

/**
 * Whether the request's protocol revision knows `resource_link` content: the revision a
 * 2026-07-28 request names in its `_meta`, else the one `initialize` agreed on (revisions are
 * dates, so they order as text).
 */
function knowsResourceLinks(server: McpServer, ctx: ServerContext): boolean {
  const named = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
  const version = typeof named === 'string' ? named : server.server.getNegotiatedProtocolVersion();
  return version === undefined || version >= RESOURCE_LINKS_SINCE;
}

/**
 * A search restricted to files that found nothing: when some of the files are not in the store,
 * that is the answer (not "the documents do not cover it"), naming them.
 */
async function checkFilesInStore(
  documents: DocumentsClient,
  store: { id: string; name: string },
  fileIds: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  const missing: string[] = [];
  const ids = [...new Set(fileIds)];
  // A few at a time: the service's per-minute limits count each look-up.
  for (let i = 0; i < ids.length; i += FILE_CHECKS_AT_ONCE) {
    await Promise.all(
      ids.slice(i, i + FILE_CHECKS_AT_ONCE).map(async (fileId) => {
        try {
          await documents.retrieveVectorStoreFile(store.id, fileId, { signal });
        } catch (error) {
          if (!(error instanceof DocChatError && error.kind === 'not_found')) throw error;
          missing.push(fileId);
        }
      }),
    );
  }
  missing.sort((a, b) => ids.indexOf(a) - ids.indexOf(b));
  if (missing.length) {
    throw new ToolInputError(
      l10n.t(
        'Not in the vector store "{0}" (store id {1}): {2}. Use file ids that docchat_list_files lists for this store.',
        store.name,
        store.id,
        missing.join(', '),
      ),
    );
  }
}

export function registerTools(server: McpServer, deps: ToolDeps): void {
  /** Runs a tool body with bounded waits; every failure becomes a tool error. */
  const run =
    <A>(body: (args: A, documents: DocumentsClient, signal: AbortSignal, ctx: ServerContext) => Promise<CallToolResult>) =>
    async (args: A, ctx: ServerContext): Promise<CallToolResult> => {
      try {
        return await deps.waits.run(ctx.mcpReq.signal, async (signal) => body(args, await deps.documents(), signal, ctx));
      } catch (error) {
        return toolError(error);
      }
    };

  const allStores = (documents: DocumentsClient, signal: AbortSignal) => deps.catalog.allStores(documents, signal);
  const findStore = (documents: DocumentsClient, wanted: string, signal: AbortSignal) => deps.catalog.findStore(documents, wanted, signal);
  const fileNames = deps.catalog.fileNames;

  server.registerTool(
    ToolNames.listStores,
    {
      title: 'List DocChat vector stores',
      description:
        "Lists the company's DocChat vector stores (collections of documents) with their names and ids. Call it first to learn which store to search or read. Returns at most 1,000 stores.",
      inputSchema: listedSchema(z.object({})),
      outputSchema: listedSchema(
        z.object({
          stores: z.array(z.object({ store_id: z.string(), store_name: z.string(), created_at: z.number().optional() })),
          truncated: z.boolean(),
        }),
      ),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run(async (_args: object, documents, signal) => {
      const { stores, truncated } = await allStores(documents, signal);
      const list = stores.map((s) => ({ store_id: s.id, store_name: s.name || s.id, created_at: s.created_at }));
      const lines = list.map((s) => `- ${s.store_name} (id ${s.store_id})`);
      const text = list.length
        ? `${list.length} vector store${list.length === 1 ? '' : 's'}${truncated ? ' (more exist)' : ''}:\n${lines.join('\n')}`
        : 'There are no vector stores yet. A user creates one in VS Code with "DocChat: Create Vector Store".';
      return ok(text, { stores: list, truncated });
    }),
  );

  server.registerTool(
    ToolNames.listFiles,
    {
      title: 'List the files of a DocChat vector store',
      description:
        'Lists the files attached to one vector store: file name, file id and processing status (only "completed" files are searchable; a "failed" one has last_error). Use it to find a file to read or to restrict a search. Returns at most 1,000 files.',
      inputSchema: listedSchema(z.object({ store: storeInput })),
      outputSchema: listedSchema(
        z.object({
          ...storeOutput,
          files: z.array(z.object({ file_id: z.string(), file_name: z.string(), status: z.string(), last_error: z.string().optional() })),
          truncated: z.boolean(),
        }),
      ),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run(async (args: { store: string }, documents, signal) => {
      const store = await findStore(documents, args.store, signal);
      const [attached, files] = await Promise.all([
        documents.listVectorStoreFiles(store.id, { limit: MAX_LISTED }, { signal }),
        documents.listFiles({ limit: LIMITS.listLimit.max }, { signal }),
      ]);
      const names = new Map(files.data.map((f) => [f.id, f.filename]));
      const list = attached.data.map((f) => ({
        file_id: f.id,
        file_name: names.get(f.id) ?? f.id,
        status: f.status,
        ...(f.last_error ? { last_error: String(f.last_error) } : {}),
      }));
      const lines = list.map((f) => `- ${f.file_name} (id ${f.file_id}): ${f.status}${f.last_error ? ` — ${f.last_error}` : ''}`);
      const text = list.length
        ? `${list.length} file${list.length === 1 ? '' : 's'} in the vector store "${store.name}"${attached.hasMore ? ' (more exist)' : ''}:\n${lines.join('\n')}`
        : `The vector store "${store.name}" has no files.`;
      return ok(text, { store_id: store.id, store_name: store.name, files: list, truncated: attached.hasMore });
    }),
  );

  server.registerTool(
    ToolNames.search,
    {
      title: 'Search a DocChat vector store',
      description:
        "Searches one of the company's document stores and returns the most relevant passages, each with its file name, file id, store and score, best first. Use it to answer questions about the company's documents and cite the file names. The query is plain text of at most 10,000 characters; max_results is 1 to 50 (default 10); file_ids restricts the search to some files.",
      inputSchema: listedSchema(
        z.object({
          store: storeInput,
          query: z
            .string()
            .trim()
            .min(LIMITS.query.min, { error: 'The query must not be empty.' })
            .max(LIMITS.query.max, { error: 'The query must be at most 10,000 characters.' })
            .describe('What to look for, in plain words (at most 10,000 characters).'),
          max_results: z
            .number()
            .int({ error: 'max_results must be a whole number from 1 to 50.' })
            .min(LIMITS.maxNumResults.min, { error: 'max_results must be from 1 to 50.' })
            .max(LIMITS.maxNumResults.max, { error: 'max_results must be from 1 to 50.' })
            .optional()
            .describe('How many passages to return, 1 to 50 (default 10).'),
          file_ids: z
            .array(fileIdInput)
            .max(100, { error: 'file_ids may name at most 100 files.' })
            .optional()
            .describe('Search only these files (ids from docchat_list_files).'),
        }),
      ),
      outputSchema: listedSchema(z.object({ ...storeOutput, query: z.string(), results: z.array(passageOutput) })),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run(async (args: { store: string; query: string; max_results?: number; file_ids?: string[] }, documents, signal, ctx) => {
      const store = await findStore(documents, args.store, signal);
      const max = args.max_results ?? LIMITS.maxNumResults.default;
      const passages = await searchPassages(documents, store, args.query, max, fileNames, signal, args.file_ids);
      if (!passages.length && args.file_ids?.length) await checkFilesInStore(documents, store, args.file_ids, signal);
      const results = passages.map((p) => ({
        file_id: p.fileId,
        file_name: p.filename ?? p.fileId,
        store_id: store.id,
        store_name: store.name,
        score: p.score ?? 0,
        content: p.content,
      }));
      const links = knowsResourceLinks(server, ctx);
      return complete(
        searchResultText(store, args.query, results, links),
        { store_id: store.id, store_name: store.name, query: args.query, results },
        links ? searchResourceLinks(results) : [],
      );
    }),
  );

  server.registerTool(
    ToolNames.readFile,
    {
      title: 'Read a file of a DocChat vector store',
      description:
        'Reads the converted text (markdown) of one file of a vector store, one page of 10,000 characters at a time. Use it when a search passage is not enough: give near (a line of the passage) to read the page around it, or read page 1 first for the whole document, then the next pages while has_more is true.',
      inputSchema: listedSchema(
        z.object({
          store: storeInput,
          file_id: fileIdInput,
          page: z
            .number()
            .int({ error: 'page must be a whole number, 1 or more.' })
            .min(1, { error: 'page must be 1 or more.' })
            .optional()
            .describe('Page to read, from 1 (default 1, or the page holding near).'),
          near: z
            .string()
            .trim()
            .min(1, { error: 'near must not be empty: give a line of a search passage.' })
            .max(LIMITS.query.max, { error: 'near must be at most 10,000 characters: a line of the passage is enough.' })
            .optional()
            .describe(
              'Text of the file, such as a line of a docchat_search passage (its "near"): read the page that holds it instead of page 1. Ignored when page is given.',
            ),
        }),
      ),
      outputSchema: listedSchema(
        z.object({
          ...storeOutput,
          file_id: z.string(),
          file_name: z.string(),
          page: z.number(),
          pages: z.number(),
          has_more: z.boolean(),
          text: z.string(),
        }),
      ),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run(async (args: { store: string; file_id: string; page?: number; near?: string }, documents, signal) => {
      const store = await findStore(documents, args.store, signal);
      const [content, name] = await Promise.all([
        deps.catalog.convertedText.read(documents, store.id, args.file_id, signal),
        fileNames.lookup(documents, args.file_id, signal),
      ]);
      const pages = content.pageCount(READ_PAGE_CHARS);
      const nearPages =
        args.page === undefined && args.near !== undefined
          ? (textPlaces(content.text, args.near) ?? []).map((at) => content.pageAt(READ_PAGE_CHARS, at))
          : undefined;
      const page = args.page ?? nearPages?.[0] ?? 1;
      if (page > pages) {
        throw new ToolInputError(
          pages === 1
            ? l10n.t('Page {0} is past the end: the file has 1 page of 10,000 characters.', page)
            : l10n.t('Page {0} is past the end: the file has {1} pages of 10,000 characters.', page, pages),
        );
      }
      const text = content.page(READ_PAGE_CHARS, page);
      const fileName = name ?? args.file_id;
      const found = nearPages ? nearNote(nearPages, page) : '';
      const header = `${fileName} (file ${args.file_id} in the vector store "${store.name}", store id ${store.id}), page ${page} of ${pages}${found}${page < pages ? `; read page ${page + 1} next` : ''}:`;
      return complete(`${header}\n\n${text}`, {
        store_id: store.id,
        store_name: store.name,
        file_id: args.file_id,
        file_name: fileName,
        page,
        pages,
        has_more: page < pages,
        text,
      });
    }),
  );

  if (!deps.allowChanges) return;

  server.registerTool(
    ToolNames.attachFile,
    {
      title: 'Attach a file to a DocChat vector store',
      description:
        'Attaches an uploaded file (by file id) to a vector store, which converts it and makes it searchable. Changes the store: use it only when the user asked for it.',
      inputSchema: listedSchema(z.object({ store: storeInput, file_id: fileIdInput })),
      outputSchema: listedSchema(z.object({ ...storeOutput, file_id: z.string(), status: z.string() })),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    run(async (args: { store: string; file_id: string }, documents, signal) => {
      const store = await findStore(documents, args.store, signal);
      const attached = await documents.attachFile(store.id, { file_id: args.file_id }, { signal });
      return ok(`Attached file ${args.file_id} to the vector store "${store.name}"; its status is ${attached.status}.`, {
        store_id: store.id,
        store_name: store.name,
        file_id: args.file_id,
        status: attached.status,
      });
    }),
  );

  server.registerTool(
    ToolNames.setFileMetadata,
    {
      title: "Set a DocChat file's metadata in a vector store",
      description:
        'Replaces the metadata of a file attached to a vector store: at most 16 pairs, keys up to 64 characters, values up to 512 characters. Changes the store: use it only when the user asked for it.',
      inputSchema: listedSchema(
        z.object({
          store: storeInput,
          file_id: fileIdInput,
          metadata: z.record(z.string(), z.string()).describe('The new metadata, replacing the old.'),
        }),
      ),
      outputSchema: listedSchema(z.object({ ...storeOutput, file_id: z.string(), metadata: z.record(z.string(), z.string()) })),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    run(async (args: { store: string; file_id: string; metadata: Record<string, string> }, documents, signal) => {
      const store = await findStore(documents, args.store, signal);
      const updated = await documents.updateVectorStoreFileMetadata(store.id, args.file_id, args.metadata, { signal });
      const metadata = Object.fromEntries(Object.entries(updated.metadata ?? {}).map(([k, v]) => [k, String(v)]));
      return ok(`Set the metadata of file ${args.file_id} in the vector store "${store.name}".`, {
        store_id: store.id,
        store_name: store.name,
        file_id: args.file_id,
        metadata,
      });
    }),
  );
}
