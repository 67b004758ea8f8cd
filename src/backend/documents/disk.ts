/**
 * Files the documents service keeps beside its journal, each written atomically:
 * `files/<file id>` holds uploaded bytes, `chunks/<store id>/<file id>.json` the converted
 * markdown, its chunks and (when hybrid search is on) their embeddings.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Chunk } from '../chunking/chunker';
import { isTempFile, removeTempFiles, writeFileAtomic } from '../persistence/atomicFile';

const SAFE_ID = /^[A-Za-z0-9_.-]+$/;

function checkId(id: string): string {
  // Ids come from this backend, but a path must never be built from anything else.
  if (!SAFE_ID.test(id) || id === '.' || id === '..') throw new Error(`Unsafe id for a file name: ${JSON.stringify(id)}`);
  return id;
}

export class BlobStore {
  constructor(private readonly dir: string) {}

  async init(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    await removeTempFiles(this.dir);
  }

  write(fileId: string, data: Uint8Array): Promise<void> {
    return writeFileAtomic(path.join(this.dir, checkId(fileId)), data);
  }

  read(fileId: string): Promise<Buffer> {
    return fs.readFile(path.join(this.dir, checkId(fileId)));
  }

  async remove(fileId: string): Promise<void> {
    await fs.rm(path.join(this.dir, checkId(fileId)), { force: true });
  }

  /** Deletes blobs no file record refers to (uploads interrupted before they were journaled). */
  async removeOrphans(keep: (fileId: string) => boolean): Promise<number> {
    const names = await fs.readdir(this.dir);
    const orphans = names.filter((name) => !isTempFile(name) && !keep(name));
    await Promise.all(orphans.map((name) => fs.rm(path.join(this.dir, name), { force: true })));
    return orphans.length;
  }
}

export interface StoredEmbeddings {
  model: string;
  dimensions: number;
  /** base64 of all chunk vectors as consecutive little-endian float32. */
  vectors: string;
}

export interface ConvertedFile {
  format: 1;
  markdown: string;
  chunks: Chunk[];
  embeddings?: StoredEmbeddings;
}

export function encodeVectors(model: string, vectors: readonly Float32Array[]): StoredEmbeddings {
  const dimensions = vectors[0]?.length ?? 0;
  const all = new Float32Array(vectors.length * dimensions);
  vectors.forEach((v, i) => all.set(v.subarray(0, dimensions), i * dimensions));
  return { model, dimensions, vectors: Buffer.from(all.buffer).toString('base64') };
}

export function decodeVectors(stored: StoredEmbeddings): Float32Array[] {
  const bytes = Buffer.from(stored.vectors, 'base64');
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const out: Float32Array[] = [];
  for (let i = 0; stored.dimensions > 0 && i < all.length; i += stored.dimensions) out.push(all.subarray(i, i + stored.dimensions));
  return out;
}

export class ChunkStore {
  constructor(private readonly dir: string) {}

  async init(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
  }

  private file(storeId: string, fileId: string): string {
    return path.join(this.dir, checkId(storeId), `${checkId(fileId)}.json`);
  }

  /** Writes the converted file, given as an object or already serialized (by a conversion worker). */
  async write(storeId: string, fileId: string, content: ConvertedFile | Uint8Array): Promise<void> {
    await fs.mkdir(path.join(this.dir, checkId(storeId)), { recursive: true });
    await writeFileAtomic(this.file(storeId, fileId), content instanceof Uint8Array ? content : JSON.stringify(content));
  }

  /** The converted file, or undefined when it is missing or unreadable. */
  async read(storeId: string, fileId: string): Promise<ConvertedFile | undefined> {
    try {
      const content = JSON.parse(await fs.readFile(this.file(storeId, fileId), 'utf8')) as ConvertedFile;
      return content?.format === 1 && Array.isArray(content.chunks) ? content : undefined;
    } catch {
      return undefined;
    }
  }

  async remove(storeId: string, fileId: string): Promise<void> {
    await fs.rm(this.file(storeId, fileId), { force: true });
  }

  async removeStore(storeId: string): Promise<void> {
    await fs.rm(path.join(this.dir, checkId(storeId)), { recursive: true, force: true });
  }

  /** Deletes converted files of store files that no longer exist, and interrupted writes. */
  async removeOrphans(keep: (storeId: string, fileId: string) => boolean): Promise<void> {
    for (const storeId of await fs.readdir(this.dir)) {
      const dir = path.join(this.dir, storeId);
      const names = await fs.readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        if (isTempFile(name) || !keep(storeId, name.replace(/\.json$/, ''))) await fs.rm(path.join(dir, name), { force: true });
      }
      if (!(await fs.readdir(dir).catch(() => ['?'])).length) await fs.rmdir(dir).catch(() => undefined);
    }
  }
}
