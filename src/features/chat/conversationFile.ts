/**
 * The chat's conversations in a file that every window on the same workspace and profile shares:
 * under the extension's global storage, in a folder named by the workspace (`conversationFolder`).
 * Not the workspace's storage folder (`context.storageUri`): a second window on a workspace that
 * is open already gets a folder of its own (`<id>-1`, VS Code's lock on the first).
 *
 * Why a file rather than workspaceState: each window's extension host keeps its own copy of
 * workspaceState, read once and never told that another window wrote it (only globalState hears
 * of other windows, and without a change event), so re-reading it before a save would still
 * return this window's copy and the last writer would win. A file read again before each save
 * is what another window last wrote; `ConversationStore` merges it with this window's copy. A
 * window takes in another window's turns when it saves and when it gets the focus back (the
 * controller calls `refresh`): a stat, and a read only when the file changed. No
 * FileSystemWatcher: the storage folder is outside the workspace, and reading on every save of
 * every other window (several a second while an answer streams) would cost more than a stat when
 * the user comes back.
 *
 * Nothing is read synchronously: until the file is read (at the chat's first use), `get` answers
 * from workspaceState, where an older DocChat saved the conversations; the store merges the file
 * in once it is read. The first write of the file clears them from workspaceState. Writes go to a
 * temporary file then a rename, so a reader never sees half a file. No `vscode` import.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { KeyValueStore } from '../../chatCore/modelCatalog';
import type { ConversationStorage } from './conversationStore';

export const CONVERSATIONS_FILE = 'conversations.json';

/**
 * The folder of a workspace's conversations under `globalStorage`: named by a hash of what
 * identifies the workspace (its `.code-workspace` file, else its folder), as VS Code names a
 * workspace's storage folder. One short string hashed, once per window.
 */
export function conversationFolder(globalStorage: string, workspace: string): string {
  return path.join(globalStorage, 'conversations', createHash('sha256').update(workspace).digest('hex').slice(0, 16));
}

/** Tells a file another window wrote from the one this window last saw (each write is a new inode). */
interface Stamp {
  ino: number;
  mtimeMs: number;
  size: number;
}

const stampOf = ({ ino, mtimeMs, size }: Stamp): Stamp => ({ ino, mtimeMs, size });
const sameStamp = (a: Stamp, b: Stamp) => a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.size === b.size;

export class ConversationFile implements ConversationStorage {
  /** The file's text as last read or written (parsed when asked: the store merges a fresh copy). */
  private text: string | undefined;
  private stamp: Stamp | undefined;
  /** The file could not be read: it is kept aside, not overwritten, at the first write. */
  private damaged = false;
  private readonly file: string;

  constructor(
    folder: string,
    /** Where an older DocChat kept the conversations (workspaceState). */
    private readonly legacy: KeyValueStore,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.file = path.join(folder, CONVERSATIONS_FILE);
  }

  /** Until the file is read (`reload`, at the chat's first use): what workspaceState holds. */
  get<T>(key: string): T | undefined {
    return (this.text === undefined ? this.legacy.get(key) : parse(this.text)[key]) as T | undefined;
  }

  /** Reads the file again when it changed since this window last read or wrote it; false when it did not. */
  async reload(): Promise<boolean> {
    try {
      const now = await stat(this.file);
      if (this.stamp && sameStamp(now, this.stamp)) return false;
      const text = await readFile(this.file, 'utf8');
      parse(text);
      this.text = text;
      this.stamp = stampOf(now);
    } catch (error) {
      this.failed(error);
    }
    return true;
  }

  async update(key: string, value: unknown): Promise<void> {
    // Serialised now: the conversations go on changing (an answer streams) while the file is written.
    const text = JSON.stringify({ ...(this.text === undefined ? {} : parse(this.text)), [key]: value });
    await mkdir(path.dirname(this.file), { recursive: true });
    if (this.damaged) {
      await rename(this.file, `${this.file}.damaged-${Date.now()}`).catch(() => undefined);
      this.damaged = false;
    }
    const temporary = `${this.file}.${process.pid}.${Date.now().toString(36)}.tmp`;
    await writeFile(temporary, text, 'utf8');
    // Stamped before the rename (which keeps it): a write of another window just after is not taken for this one.
    const stamp = stampOf(await stat(temporary));
    await rename(temporary, this.file);
    this.text = text;
    this.stamp = stamp;
    // The file has them now: workspaceState no longer holds a second, ageing copy.
    if (this.legacy.get(key) !== undefined) await this.legacy.update(key, undefined);
  }

  private failed(error: unknown): void {
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return;
    this.damaged = error instanceof SyntaxError || (error instanceof Error && error.message === NOT_AN_OBJECT);
    this.warn(`Could not read the saved conversations (${this.file}): ${String(error)}`);
  }
}

const NOT_AN_OBJECT = 'not a JSON object';

function parse(text: string): Record<string, unknown> {
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(NOT_AN_OBJECT);
  }
  return parsed as Record<string, unknown>;
}
