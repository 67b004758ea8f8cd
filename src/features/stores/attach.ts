import * as path from 'node:path';
import * as vscode from 'vscode';
import type { VectorStore, VectorStoreFile } from '../../api/documents/schemas';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { describeError, isCancellation } from '../../services/errors';
import { conversionChoice, convertingMessage, everySecond, summarizeAttach, type AttachOutcome } from './attachModel';
import { askConversion } from './conversionQuestion';
import { createStoreInteractive } from './createStore';
import type { StoreFileNode } from './nodes';
import { pickStore } from './storePicker';
import type { StoresTreeProvider } from './treeProvider';
import { requireDocuments } from '../../services/commands';

/** The store files are attached to: a listed store, or one a command names (the chat's). */
type TargetStore = Pick<VectorStore, 'id' | 'name'>;

export interface AttachSource {
  readonly name: string;
  read(): Promise<Uint8Array>;
}

/** A file of the workspace (an unsaved editor's text wins over what is on disk). */
export function sourceFromUri(uri: vscode.Uri): AttachSource {
  return {
    name: path.posix.basename(uri.path) || 'file',
    read: async () => {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      return open?.isDirty ? new TextEncoder().encode(open.getText()) : vscode.workspace.fs.readFile(uri);
    },
  };
}

/** An editor's document, including untitled ones (named after their language). */
export function sourceFromDocument(document: vscode.TextDocument): AttachSource {
  if (!document.isUntitled && document.uri.scheme === 'file') {
    return sourceFromUri(document.uri);
  }
  const base = path.posix.basename(document.uri.path) || vscode.l10n.t('Untitled');
  const name = path.posix.extname(base) ? base : `${base}.${document.languageId === 'markdown' ? 'md' : 'txt'}`;
  return { name, read: async () => new TextEncoder().encode(document.getText()) };
}

/** Folders are skipped (attaching a whole tree by accident is costly); returns the files. */
export async function sourcesFromUris(uris: readonly vscode.Uri[]): Promise<{ sources: AttachSource[]; skipped: string[] }> {
  const sources: AttachSource[] = [];
  const skipped: string[] = [];
  for (const uri of uris) {
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.type & vscode.FileType.Directory) {
        skipped.push(path.posix.basename(uri.path));
        continue;
      }
    } catch {
      // Unsaved or virtual documents have no stat; their editor supplies the text.
    }
    sources.push(sourceFromUri(uri));
  }
  return { sources, skipped };
}

export class AttachFlow {
  constructor(
    private readonly services: Services,
    private readonly tree: StoresTreeProvider,
    private readonly reveal: (node: StoreFileNode) => Thenable<void>,
    private readonly state: vscode.Memento,
  ) {}

  /** Attach the given files to a store (asked for when not given). */
  async run(sources: readonly AttachSource[], store?: TargetStore): Promise<AttachOutcome[] | undefined> {
    if (sources.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: there is no file to attach.'));
      return undefined;
    }
    const target =
      store ??
      (await pickStore(this.services, {
        title:
          sources.length === 1
            ? vscode.l10n.t('Attach "{0}" to…', sources[0]!.name)
            : vscode.l10n.t('Attach {0} files to…', sources.length),
        create: () => createStoreInteractive(this.services),
      }));
    if (!target) {
      return undefined;
    }
    await this.services.recentStores.touch(target.id);
    const skipOcr = await this.askSkipOcr(sources);
    if (skipOcr === undefined) {
      return undefined;
    }
    const outcomes = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('DocChat: attaching to "{0}"', target.name),
        cancellable: true,
      },
      (progress, token) => this.attachAll(sources, target, skipOcr, progress, token),
    );
    this.announce(target, outcomes);
    return outcomes;
  }

  /** undefined: cancelled. Text formats never ask; the setting can answer for the user. */
  private async askSkipOcr(sources: readonly AttachSource[]): Promise<boolean | undefined> {
    const choice = conversionChoice({
      mode: this.services.config.current.attachSkipOcr,
      names: sources.map((s) => s.name),
      canAsk: true,
    });
    return choice === 'ask' ? askConversion(this.state) : choice;
  }

  private async attachAll(
    sources: readonly AttachSource[],
    store: TargetStore,
    skipOcr: boolean,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
    token: vscode.CancellationToken,
  ): Promise<AttachOutcome[]> {
    const abort = new AbortController();
    const cancel = token.onCancellationRequested(() => abort.abort());
    const outcomes: AttachOutcome[] = [];
    /** Files this flow follows itself (the tree does not poll them meanwhile). */
    const followed: string[] = [];
    const step = 100 / (sources.length * 2);
    try {
      // Upload and attach one after the other (the attach limit is 30 a minute) …
      for (const [index, source] of sources.entries()) {
        if (abort.signal.aborted) {
          outcomes.push({ filename: source.name, cancelled: true });
          continue;
        }
        progress.report({ message: vscode.l10n.t('uploading "{0}" ({1}/{2})', source.name, index + 1, sources.length) });
        try {
          const file = await this.uploadAndAttach(source, store, skipOcr, abort.signal, (fileId) => followed.push(fileId));
          outcomes.push({ filename: source.name, file });
        } catch (error) {
          if (isCancellation(error)) {
            outcomes.push({ filename: source.name, cancelled: true });
          } else {
            this.services.log.error(`Attaching "${source.name}" to ${store.id} failed: ${describeError(error)}`);
            outcomes.push({ filename: source.name, error: describeError(error) });
          }
        }
        progress.report({ increment: step });
      }
      // … then follow every conversion at once, telling how long it has run.
      const started = Date.now();
      let converting = outcomes.filter((o) => o.file && !o.cancelled).length;
      const ticker =
        converting === 0 ? undefined : everySecond(() => progress.report({ message: convertingMessage(converting, Date.now() - started) }));
      await Promise.all(
        outcomes.map(async (outcome) => {
          if (!outcome.file || outcome.cancelled) {
            return;
          }
          try {
            outcome.file = await this.client().waitUntilProcessed(store.id, outcome.file.id, {
              signal: abort.signal,
              onStatus: (file) => this.services.documentsEvents.storeFileChanged(store.id, file),
            });
            this.services.documentsEvents.storeFileChanged(store.id, outcome.file);
          } catch (error) {
            if (isCancellation(error)) {
              outcome.cancelled = true;
            } else {
              outcome.error = describeError(error);
            }
          }
          converting--;
          progress.report({ increment: step, message: `"${outcome.filename}": ${outcome.file.status.replace(/_/g, ' ')}` });
        }),
      ).finally(() => ticker?.dispose());
    } finally {
      cancel.dispose();
      // Conversions the user stopped waiting for continue on the service: the tree follows them.
      for (const fileId of followed) {
        this.tree.endFollow(store.id, fileId, outcomes.find((o) => o.file?.id === fileId)?.file);
      }
    }
    return outcomes;
  }

  private async uploadAndAttach(
    source: AttachSource,
    store: TargetStore,
    skipOcr: boolean,
    signal: AbortSignal,
    onFollow: (fileId: string) => void,
  ): Promise<VectorStoreFile> {
    const data = await source.read();
    const client = this.client();
    const uploaded = await client.uploadFile({ filename: source.name, data }, { signal });
    this.services.documentsEvents.fileChanged(uploaded);
    const attached = await client.attachFile(store.id, { file_id: uploaded.id, ...(skipOcr ? { skipOcr: true } : {}) }, { signal });
    this.services.log.info(`Attached ${uploaded.id} ("${source.name}") to ${store.id}${skipOcr ? ' without OCR' : ''}`);
    // This flow follows the conversion itself; the tree's poller must not poll it as well.
    this.tree.followAttach(store.id, attached.id);
    onFollow(attached.id);
    this.services.documentsEvents.storeFileChanged(store.id, attached);
    return attached;
  }

  private announce(store: TargetStore, outcomes: readonly AttachOutcome[]): void {
    const summary = summarizeAttach(store.name || store.id, outcomes);
    const firstDone = outcomes.find((o) => o.file && !o.error);
    const node = firstDone?.file ? this.tree.fileNode(store.id, firstDone.file.id) : undefined;
    if (node) {
      this.reveal(node).then(undefined, (error: unknown) =>
        this.services.log.warn(`Could not reveal ${node.fileId} in the tree: ${describeError(error)}`),
      );
    }
    if (summary.level === 'info') {
      void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: {0}', summary.message));
      return;
    }
    const show = summary.level === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    void show(vscode.l10n.t('DocChat: {0}', summary.message), vscode.l10n.t('Open Output')).then((choice) => {
      if (choice) {
        void vscode.commands.executeCommand(Commands.showOutput);
      }
    });
  }

  private client() {
    const client = requireDocuments(this.services.connection);
    return client;
  }
}
