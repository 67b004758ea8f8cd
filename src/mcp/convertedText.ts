/**
 * The converted text of the files the MCP server reads, kept so that reading page 2, 3, … of a
 * file (a resource or docchat_read_file) does not download the whole text again: the documents
 * service gives a file's content only whole. Each read asks for the vector store file (a small
 * record) and serves the kept text while that record is unchanged; the kept texts are bounded in
 * bytes, least recently read dropped first, and a file's text is read up to a stated size.
 * No `vscode` import.
 */
import type { DocumentsClient } from '../api/documents/client';
import type { VectorStoreFile } from '../api/documents/schemas';
import { DocChatError, isAbortError } from '../api/http/errors';

/** Most converted text (UTF-8 bytes as the service sends it) read of one file. */
export const MAX_CONVERTED_TEXT_BYTES = 16 * 1024 * 1024;
/** Most converted text (UTF-8 bytes) kept across files for reading further pages. */
export const CONVERTED_TEXT_CACHE_BYTES = 32 * 1024 * 1024;

const MIB = 1024 * 1024;

/** A file whose converted text is past `MAX_CONVERTED_TEXT_BYTES`. */
export class ConvertedTextTooLargeError extends DocChatError {
  constructor(readonly fileId: string) {
    super(
      'validation',
      `The converted text of file ${fileId} is larger than ${MAX_CONVERTED_TEXT_BYTES / MIB} MiB, the most DocChat's MCP server reads of one file. Search it with docchat_search instead.`,
    );
  }
}

/** A file's converted text, split into pages of whole characters (code points) on demand. */
export class PagedText {
  /** Code-unit offsets of the page starts, per page size. */
  private readonly starts = new Map<number, number[]>();

  constructor(
    readonly text: string,
    readonly bytes: number,
  ) {}

  pageCount(pageChars: number): number {
    return this.offsets(pageChars).length;
  }

  /** Page `page` (from 1) of `pageChars` characters; '' past the end. */
  page(pageChars: number, page: number): string {
    const starts = this.offsets(pageChars);
    if (page < 1 || page > starts.length) return '';
    return this.text.slice(starts[page - 1], starts[page] ?? this.text.length);
  }

  /** The page (from 1) of `pageChars` characters that holds the code unit at `offset`. */
  pageAt(pageChars: number, offset: number): number {
    const starts = this.offsets(pageChars);
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  }

  private offsets(pageChars: number): number[] {
    let starts = this.starts.get(pageChars);
    if (starts) return starts;
    starts = [0];
    const text = this.text;
    let count = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      // A surrogate pair is one character, as Array.from counts them.
      if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
      if (++count === pageChars && i + 1 < text.length) {
        starts.push(i + 1);
        count = 0;
      }
    }
    this.starts.set(pageChars, starts);
    return starts;
  }
}

interface Entry {
  /** What the vector store file record was when the text was read. */
  version: string;
  text: Promise<PagedText>;
  /** Known once the text arrived. */
  bytes: number;
}

function versionOf(file: VectorStoreFile): string {
  return JSON.stringify([file.created_at, file.status, file.usage_bytes ?? null]);
}

export class ConvertedTextCache {
  /** In order of use: the least recently read first. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes = CONVERTED_TEXT_CACHE_BYTES) {}

  /** Bytes of text kept now. */
  get keptBytes(): number {
    return this.bytes;
  }

  /** The converted text of `fileId` in `storeId`: kept while its record is unchanged, else downloaded. */
  async read(documents: DocumentsClient, storeId: string, fileId: string, signal: AbortSignal): Promise<PagedText> {
    const key = `${storeId}\u0000${fileId}`;
    const version = versionOf(await documents.retrieveVectorStoreFile(storeId, fileId, { signal }));
    for (let attempt = 1; ; attempt++) {
      let entry = this.entries.get(key);
      if (entry?.version !== version) {
        if (entry) this.drop(key, entry);
        entry = this.download(documents, key, version, storeId, fileId, signal);
      }
      this.entries.delete(key);
      this.entries.set(key, entry); // most recently used
      try {
        return await entry.text;
      } catch (error) {
        // A download shared with a caller who cancelled it: this caller, not cancelled, downloads again.
        if (isAbortError(error) && !signal.aborted && attempt < 3) continue;
        throw error;
      }
    }
  }

  private download(documents: DocumentsClient, key: string, version: string, storeId: string, fileId: string, signal: AbortSignal): Entry {
    const entry: Entry = { version, bytes: 0, text: Promise.resolve(new PagedText('', 0)) };
    entry.text = documents
      .retrieveVectorStoreFileContent(storeId, fileId, {
        signal,
        limit: { maxBytes: MAX_CONVERTED_TEXT_BYTES, tooLarge: () => new ConvertedTextTooLargeError(fileId) },
      })
      .then(
        (text) => {
          const paged = new PagedText(text, Buffer.byteLength(text, 'utf8'));
          if (this.entries.get(key) === entry) {
            if (paged.bytes > this.maxBytes) this.drop(key, entry);
            else {
              entry.bytes = paged.bytes;
              this.bytes += paged.bytes;
              this.evict();
            }
          }
          return paged;
        },
        (error: unknown) => {
          if (this.entries.get(key) === entry) this.drop(key, entry);
          throw error;
        },
      );
    this.entries.set(key, entry);
    return entry;
  }

  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) return;
      this.drop(key, entry);
    }
  }
}
