/** HTTP routes of the documents service (OpenAI-style paths under /v1). */
import type { DocumentsOperation } from '../../api/documents/schemas';
import { formatBytes, readBody, readJson, tooLarge } from '../http/body';
import { ApiError, invalid } from '../http/errors';
import { boundaryOf, parseMultipart } from '../http/multipart';
import { sendBytes, sendJson } from '../http/respond';
import type { RequestContext, Route } from '../http/router';
import { fileObject, storeFileObject } from './model';
import { parseListQuery } from './pagination';
import type { DocumentsService } from './service';
import { checkAttach, checkCreateStore, checkMetadata, checkMetadataUpdate, checkSearch, checkStoreFileUpdate } from './validation';

const STORE_FILE_STATUSES = ['in_progress', 'completed', 'failed', 'cancelled'];

export function documentsRoutes(service: DocumentsService, maxUploadBytes: number): Route[] {
  const route = (method: string, path: string, operation: DocumentsOperation, handler: (ctx: RequestContext) => Promise<void>): Route => ({
    method,
    path,
    service: 'documents',
    operation,
    handler,
  });
  const uploadTooLarge = () => tooLarge(maxUploadBytes, `The file is larger than the upload limit of ${formatBytes(maxUploadBytes)}.`);
  const storeObject = (id: string) => service.storeObject(service.getStore(id));

  return [
    // ---------------------------------------------------------------- vector stores
    route('POST', '/v1/vector_stores', 'createVectorStore', async (ctx) => {
      const { name, metadata, expiresAfter, fileIds } = checkCreateStore(await readJson(ctx.req));
      // OpenAI's file_ids: every file must exist before the store is made, so a wrong id leaves nothing half done.
      for (const fileId of fileIds) service.getFile(fileId);
      const store = await service.createStore(name, metadata, expiresAfter);
      for (const fileId of fileIds) await service.attachFile(store.id, fileId, undefined, false);
      sendJson(ctx.res, 200, service.storeObject(service.getStore(store.id)));
    }),
    route('GET', '/v1/vector_stores', 'listVectorStores', async (ctx) => {
      sendJson(ctx.res, 200, service.listStores(parseListQuery(ctx.query)));
    }),
    route('GET', '/v1/vector_stores/:storeId', 'retrieveVectorStore', async (ctx) => {
      sendJson(ctx.res, 200, storeObject(ctx.params.storeId!));
    }),
    route('DELETE', '/v1/vector_stores/:storeId', 'deleteVectorStore', async (ctx) => {
      await service.deleteStore(ctx.params.storeId!);
      sendJson(ctx.res, 200, { id: ctx.params.storeId, object: 'vector_store.deleted', deleted: true });
    }),

    // ---------------------------------------------------------------- files
    route('POST', '/v1/files', 'uploadFile', async (ctx) => {
      const boundary = boundaryOf(ctx.req.headers['content-type']);
      if (!boundary) {
        await readBody(ctx.req, maxUploadBytes);
        throw invalid(null, 'Upload a file as multipart/form-data with a "file" part and a "purpose" field.', 'invalid_content_type');
      }
      // Allow for the multipart framing on top of the file itself.
      const body = await readBody(ctx.req, maxUploadBytes + 64 * 1024).catch((error: unknown) => {
        throw error instanceof ApiError && error.status === 413 ? uploadTooLarge() : error;
      });
      const fields = parseMultipart(body, boundary);
      const filePart = fields.find((f) => f.name === 'file' && f.data);
      if (!filePart?.data) throw invalid('file', 'The upload has no "file" part.', 'missing_required_parameter');
      if (filePart.data.length > maxUploadBytes) throw uploadTooLarge();
      const purpose = fields.find((f) => f.name === 'purpose')?.value ?? 'assistants';
      const metadataField = fields.find((f) => f.name === 'metadata')?.value;
      let metadata = {};
      if (metadataField !== undefined) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(metadataField);
        } catch {
          throw invalid('metadata', 'The metadata field must be a JSON object.', 'invalid_json');
        }
        metadata = checkMetadata(parsed);
      }
      const file = await service.uploadFile(filePart.filename ?? '', filePart.data, purpose, metadata);
      sendJson(ctx.res, 200, fileObject(file, ctx.origin));
    }),
    route('GET', '/v1/files', 'listFiles', async (ctx) => {
      sendJson(
        ctx.res,
        200,
        service.listFiles(parseListQuery(ctx.query), (f) => fileObject(f, ctx.origin)),
      );
    }),
    route('GET', '/v1/files/:fileId', 'retrieveFile', async (ctx) => {
      sendJson(ctx.res, 200, fileObject(service.getFile(ctx.params.fileId!), ctx.origin));
    }),
    route('PUT', '/v1/files/:fileId', 'updateFileMetadata', async (ctx) => updateFile(ctx)),
    route('POST', '/v1/files/:fileId', 'updateFileMetadata', async (ctx) => updateFile(ctx)),
    route('DELETE', '/v1/files/:fileId', 'deleteFile', async (ctx) => {
      await service.deleteFile(ctx.params.fileId!);
      sendJson(ctx.res, 200, { id: ctx.params.fileId, object: 'file.deleted', deleted: true });
    }),
    route('GET', '/v1/files/:fileId/content', 'retrieveFileContent', async (ctx) => {
      const file = service.getFile(ctx.params.fileId!);
      const data = await service.fileContent(file.id);
      sendBytes(ctx.res, data, 'application/octet-stream', {
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
      });
    }),

    // ---------------------------------------------------------------- vector store files
    route('POST', '/v1/vector_stores/:storeId/files', 'attachFile', async (ctx) => {
      const { fileId, metadata, skipOcr } = checkAttach(await readJson(ctx.req));
      const record = await service.attachFile(ctx.params.storeId!, fileId, metadata, skipOcr);
      sendJson(ctx.res, 200, storeFileObject(record));
    }),
    route('GET', '/v1/vector_stores/:storeId/files', 'listVectorStoreFiles', async (ctx) => {
      // `filter` (a status) as in OpenAI's API.
      const filter = ctx.query.get('filter') ?? undefined;
      if (filter !== undefined && !STORE_FILE_STATUSES.includes(filter)) {
        throw invalid('filter', `filter must be one of ${STORE_FILE_STATUSES.join(', ')} (got "${filter}").`, 'invalid_value');
      }
      sendJson(ctx.res, 200, service.listStoreFiles(ctx.params.storeId!, parseListQuery(ctx.query, ['filter']), filter));
    }),
    route('GET', '/v1/vector_stores/:storeId/files/:fileId', 'retrieveVectorStoreFile', async (ctx) => {
      sendJson(ctx.res, 200, storeFileObject(service.getStoreFile(ctx.params.storeId!, ctx.params.fileId!)));
    }),
    route('PUT', '/v1/vector_stores/:storeId/files/:fileId', 'updateVectorStoreFileMetadata', async (ctx) => updateStoreFile(ctx)),
    route('POST', '/v1/vector_stores/:storeId/files/:fileId', 'updateVectorStoreFileMetadata', async (ctx) => updateStoreFile(ctx)),
    route('DELETE', '/v1/vector_stores/:storeId/files/:fileId', 'deleteVectorStoreFile', async (ctx) => {
      await service.deleteStoreFile(ctx.params.storeId!, ctx.params.fileId!);
      sendJson(ctx.res, 200, { id: ctx.params.fileId, object: 'vector_store.file.deleted', deleted: true });
    }),
    route('GET', '/v1/vector_stores/:storeId/files/:fileId/content', 'retrieveVectorStoreFileContent', async (ctx) => {
      const markdown = await service.storeFileContent(ctx.params.storeId!, ctx.params.fileId!);
      sendJson(ctx.res, 200, {
        object: 'vector_store.file_content.page',
        file_id: ctx.params.fileId,
        filename: service.getFile(ctx.params.fileId!).filename,
        data: [{ type: 'text', text: markdown }],
        has_more: false,
        next_page: null,
      });
    }),

    // ---------------------------------------------------------------- search
    route('POST', '/v1/vector_stores/:storeId/search', 'search', async (ctx) => {
      const params = checkSearch(await readJson(ctx.req));
      sendJson(ctx.res, 200, await service.search(ctx.params.storeId!, params));
    }),
  ];

  async function updateFile(ctx: RequestContext): Promise<void> {
    const metadata = checkMetadataUpdate(await readJson(ctx.req));
    sendJson(ctx.res, 200, fileObject(await service.updateFileMetadata(ctx.params.fileId!, metadata), ctx.origin));
  }

  async function updateStoreFile(ctx: RequestContext): Promise<void> {
    const metadata = checkStoreFileUpdate(await readJson(ctx.req));
    sendJson(ctx.res, 200, storeFileObject(await service.updateStoreFileMetadata(ctx.params.storeId!, ctx.params.fileId!, metadata)));
  }
}
