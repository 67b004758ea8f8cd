/**
 * Durable state of the documents service: the in-memory records, the journal that makes every
 * change durable before it is acknowledged, and the blob and chunk files beside it.
 *
 * Layout of the data folder:
 *   state/snapshot.json, state/journal.log   records (see persistence/journal.ts)
 *   files/<file id>                            uploaded bytes
 *   chunks/<store id>/<file id>.json           converted markdown and chunks
 *   backend.lock                               the process that owns the folder
 */
import path from 'node:path';
import { Journal } from '../persistence/journal';
import { BlobStore, ChunkStore } from './disk';
import type { JournalOp } from './model';
import { DocumentsState, type StateSnapshot } from './state';

type Entry = JournalOp & { seq?: number };

export class DocumentsRepository {
  readonly state = new DocumentsState();
  readonly blobs: BlobStore;
  readonly chunks: ChunkStore;
  private journal!: Journal<StateSnapshot, Entry>;

  private constructor(readonly dataDir: string) {
    this.blobs = new BlobStore(path.join(dataDir, 'files'));
    this.chunks = new ChunkStore(path.join(dataDir, 'chunks'));
  }

  static async open(
    dataDir: string,
    log: (level: 'info' | 'warn', message: string) => void,
    compactEvery?: number,
  ): Promise<DocumentsRepository> {
    const repository = new DocumentsRepository(dataDir);
    const { journal, loaded } = await Journal.open<StateSnapshot, Entry>(
      path.join(dataDir, 'state'),
      () => repository.state.snapshot(),
      compactEvery,
    );
    repository.journal = journal;
    if (loaded.snapshot) repository.state.load(loaded.snapshot);
    for (const entry of loaded.entries) repository.state.apply(entry);
    if (loaded.truncatedBytes > 0) {
      log('warn', `Recovered the journal: dropped ${loaded.truncatedBytes} bytes of an interrupted write (never acknowledged).`);
    }
    await repository.blobs.init();
    await repository.chunks.init();
    const orphans = await repository.blobs.removeOrphans((id) => repository.state.files.has(id));
    if (orphans) log('info', `Removed ${orphans} uploaded file(s) whose upload never completed.`);
    await repository.chunks.removeOrphans((storeId, fileId) => repository.state.storeFile(storeId, fileId) !== undefined);
    return repository;
  }

  /**
   * Applies a change to the in-memory state at once (so later changes build on it) and resolves
   * when it is on disk; only then may the change be acknowledged.
   */
  commit(op: JournalOp): Promise<void> {
    this.state.apply(op);
    return this.journal.append(op);
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}
