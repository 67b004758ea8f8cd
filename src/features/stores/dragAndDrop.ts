import * as vscode from 'vscode';
import type { VectorStore } from '../../api/documents/schemas';
import type { Services } from '../../services';
import { sourcesFromUris, type AttachFlow } from './attach';
import { parseUriList } from './attachModel';
import type { TreeNode } from './nodes';

const URI_LIST = 'text/uri-list';

/** The store a drop on this node means: the store itself, or the store of a file inside it. */
export function storeOfDropTarget(target: TreeNode | undefined): VectorStore | undefined {
  if (!target) {
    return undefined;
  }
  if (target.kind === 'store') {
    return target.store;
  }
  return target.parent?.store;
}

/** Files dragged from the Explorer (or the OS) onto a store are attached to it. */
export class StoresDragAndDrop implements vscode.TreeDragAndDropController<TreeNode> {
  readonly dropMimeTypes = [URI_LIST];
  readonly dragMimeTypes: string[] = [];

  constructor(
    private readonly attach: AttachFlow,
    private readonly services: Services,
  ) {}

  async handleDrop(target: TreeNode | undefined, dataTransfer: vscode.DataTransfer, token: vscode.CancellationToken): Promise<void> {
    const item = dataTransfer.get(URI_LIST);
    if (!item) {
      return;
    }
    const uris = parseUriList(await item.asString()).flatMap((line) => {
      try {
        return [vscode.Uri.parse(line, true)];
      } catch {
        return [];
      }
    });
    if (token.isCancellationRequested || uris.length === 0) {
      return;
    }
    const { sources, skipped } = await sourcesFromUris(uris);
    if (skipped.length) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('DocChat: folders are not attached ({0}); drop the files inside them.', skipped.join(', ')),
      );
    }
    try {
      await this.attach.run(sources, storeOfDropTarget(target));
    } catch (error) {
      this.services.errors.report(error, vscode.l10n.t('DocChat: could not attach the dropped files.'));
    }
  }
}
