/**
 * The URIs of DocChat's MCP resources: one per file of a vector store,
 * `docchat://stores/<store id>/files/<file id>`, with `?page=<n>` for the pages after the first.
 * Search results link to them, the resource template of each store names them, and
 * `resources/read` parses them. No `vscode` import.
 */

export const RESOURCE_SCHEME = 'docchat';

export interface FileResourceRef {
  readonly storeId: string;
  readonly fileId: string;
  /** From 1; absent means the first page. */
  readonly page?: number;
}

export function fileResourceUri(storeId: string, fileId: string, page?: number): string {
  const base = `${RESOURCE_SCHEME}://stores/${encodeURIComponent(storeId)}/files/${encodeURIComponent(fileId)}`;
  return page && page > 1 ? `${base}?page=${page}` : base;
}

/** The RFC 6570 template of one store's files (`file_id` and the optional `page` are the variables). */
export function storeResourceTemplate(storeId: string): string {
  return `${RESOURCE_SCHEME}://stores/${encodeURIComponent(storeId)}/files/{file_id}{?page}`;
}

/** The store, file and page a resource URI names; a sentence saying what is wrong otherwise. */
export function parseFileResourceUri(uri: string): FileResourceRef | string {
  const match = /^docchat:\/\/stores\/([^/?#]+)\/files\/([^/?#]+)(?:\?([^#]*))?$/i.exec(uri.trim());
  if (!match) {
    return `"${uri}" is not a DocChat file resource: the URI is docchat://stores/<store id>/files/<file id>, optionally with ?page=<n>.`;
  }
  let storeId: string;
  let fileId: string;
  try {
    storeId = decodeURIComponent(match[1]!);
    fileId = decodeURIComponent(match[2]!);
  } catch {
    return `"${uri}" is not a DocChat file resource: its store or file id is not valid percent-encoding.`;
  }
  const pageText = new URLSearchParams(match[3] ?? '').get('page');
  if (pageText === null) return { storeId, fileId };
  const page = Number(pageText);
  if (!/^\d+$/.test(pageText) || !Number.isSafeInteger(page) || page < 1) {
    return `The page of "${uri}" must be a whole number, 1 or more.`;
  }
  return { storeId, fileId, page };
}
