import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import { SyncJournal } from './journal';
import type { HashCacheEntry } from './scanner';
import { StateKeys } from '../../common/constants';

/** A folder that keeps a store in sync (kept in the workspace state). */
export interface Follow {
  id: string;
  /** The workspace folder the recorded paths are relative to. */
  rootUri: string;
  folderUri: string;
  /** The folder relative to the workspace folder ('' for the folder itself). */
  relativeFolder: string;
  storeId: string;
  storeName: string;
  /** The user confirmed a plan for this folder: later syncs act without asking. */
  confirmed: boolean;
  /**
   * How this folder's files are converted, as the user chose when a sync of it asked
   * (`docchat.attach.skipOcr` set to "Ask"): true skips OCR and table recognition. Later syncs,
   * started by the user or by a saved file, use it without asking; absent: never asked (full conversion).
   */
  skipOcr?: boolean;
  lastSyncAt?: number;
  lastError?: string;
}

export type RecordStatus = 'synced' | 'converting' | 'failed';

/** What DocChat knows of one synced file (kept in a file in workspace storage). */
export interface FileRecord extends HashCacheEntry {
  fileId?: string;
  status: RecordStatus;
  error?: string;
}

export type SyncActivity = 'idle' | 'planning' | 'syncing' | 'waiting';

const FOLLOWS_KEY = StateKeys.syncFollows;

/**
 * The followed folders (workspace state) and, for each, its file records and write-ahead journal
 * (files in the workspace storage folder, each snapshot written to a temporary file and renamed).
 */
/** How often a running sync's record changes reach decorations and the tree at most. */
const CHANGE_BATCH_MS = 250;

export class FollowStore extends Disposable {
  private readonly records = new Map<string, Map<string, FileRecord>>();
  private readonly activity = new Map<string, { kind: SyncActivity; detail?: string }>();
  private readonly pendingChanges = new Map<string, NodeJS.Timeout>();
  private readonly _onDidChange = this._register(new vscode.EventEmitter<Follow | undefined>());
  /** A follow, its records or its activity changed (undefined: the list of follows). */
  readonly onDidChange = this._onDidChange.event;

  constructor(
    private readonly state: vscode.Memento,
    private readonly storageDir: string,
  ) {
    super();
  }

  list(): Follow[] {
    return this.state.get<Follow[]>(FOLLOWS_KEY, []);
  }

  get(id: string): Follow | undefined {
    return this.list().find((f) => f.id === id);
  }

  forStore(storeId: string): Follow[] {
    return this.list().filter((f) => f.storeId === storeId);
  }

  forFolder(folderUri: string, storeId: string): Follow | undefined {
    return this.list().find((f) => f.folderUri === folderUri && f.storeId === storeId);
  }

  /** The follow whose folder holds the file, deepest folder first. */
  containing(uri: vscode.Uri): Follow[] {
    const target = uri.toString();
    return this.list()
      .filter((f) => target === f.folderUri || target.startsWith(f.folderUri.endsWith('/') ? f.folderUri : `${f.folderUri}/`))
      .sort((a, b) => b.folderUri.length - a.folderUri.length);
  }

  static idFor(folderUri: string, storeId: string): string {
    return createHash('sha256').update(`${folderUri}\0${storeId}`).digest('hex').slice(0, 16);
  }

  async save(follow: Follow): Promise<void> {
    const others = this.list().filter((f) => f.id !== follow.id);
    await this.state.update(FOLLOWS_KEY, [...others, follow]);
    this._onDidChange.fire(follow);
  }

  async remove(follow: Follow): Promise<void> {
    await this.state.update(
      FOLLOWS_KEY,
      this.list().filter((f) => f.id !== follow.id),
    );
    this.records.delete(follow.id);
    await rm(this.recordsFile(follow), { force: true });
    await this.journal(follow).finish();
    this._onDidChange.fire(undefined);
  }

  journal(follow: Follow): SyncJournal {
    return new SyncJournal(path.join(this.storageDir, 'sync', `${follow.id}.journal.jsonl`));
  }

  private recordsFile(follow: Follow): string {
    return path.join(this.storageDir, 'sync', `${follow.id}.records.json`);
  }

  async loadRecords(follow: Follow): Promise<Map<string, FileRecord>> {
    let records = this.records.get(follow.id);
    if (records) return records;
    try {
      records = new Map(Object.entries(JSON.parse(await readFile(this.recordsFile(follow), 'utf8')) as Record<string, FileRecord>));
    } catch {
      records = new Map();
    }
    this.records.set(follow.id, records);
    return records;
  }

  /** Records already loaded (the decorations ask synchronously). */
  cachedRecords(follow: Follow): Map<string, FileRecord> | undefined {
    return this.records.get(follow.id);
  }

  async saveRecords(follow: Follow): Promise<void> {
    const records = this.records.get(follow.id);
    if (!records) return;
    const file = this.recordsFile(follow);
    await mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(Object.fromEntries(records)));
    await rename(temp, file);
  }

  setActivity(follow: Follow, kind: SyncActivity, detail?: string): void {
    this.activity.set(follow.id, { kind, detail });
    this._onDidChange.fire(follow);
  }

  activityOf(follow: Follow): { kind: SyncActivity; detail?: string } {
    return this.activity.get(follow.id) ?? { kind: 'idle' };
  }

  /**
   * A file's record changed. A sync records a file every few milliseconds: the change is told at
   * most once per {@link CHANGE_BATCH_MS} per follow, so decorations and the tree refresh in batches.
   */
  changed(follow: Follow): void {
    if (this.pendingChanges.has(follow.id)) return;
    const timer = setTimeout(() => {
      this.pendingChanges.delete(follow.id);
      this._onDidChange.fire(follow);
    }, CHANGE_BATCH_MS);
    this.pendingChanges.set(follow.id, timer);
  }

  override dispose(): void {
    for (const timer of this.pendingChanges.values()) clearTimeout(timer);
    this.pendingChanges.clear();
    super.dispose();
  }
}
