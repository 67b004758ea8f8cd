import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import { passageOf, sourceColumnFor, sourceOpenedIn, type PassageDocuments, type QuoteFocus } from '../search';
import { isOpenableLink } from '../../chatCore/links';
import type { ChatSource, SelectionSource } from '../../chatCore/protocol';

/** Opens an answer's sources (passages, selections, web pages) and inserts code where the user was editing. */
export interface SourceOpener {
  /**
   * `chatColumn`: where the chat panel is, so the source opens in another group. `focus`: what the
   * answer quoted of a passage, highlighted and scrolled to instead of the whole passage.
   */
  open(source: ChatSource, chatColumn?: vscode.ViewColumn, focus?: QuoteFocus): Promise<void>;
  insertAtCursor(code: string): Promise<void>;
  /** Opens a web page in the browser; the caller has checked that it is an http(s) link. */
  openExternal(uri: vscode.Uri): Promise<void>;
}

function editable(editor: vscode.TextEditor | undefined): vscode.TextEditor | undefined {
  const scheme = editor?.document.uri.scheme;
  return scheme === 'untitled' || (scheme !== undefined && vscode.workspace.fs.isWritableFileSystem(scheme) === true) ? editor : undefined;
}

/**
 * Passages open the way the search quick pick opens them (the workspace file when the passage is
 * found there, else the store file's converted markdown), with what the answer quoted of them
 * highlighted and scrolled into view (the whole passage when the quote is not found);
 * selections reveal their editor range.
 */
export class ChatSourceOpener extends Disposable implements SourceOpener {
  /** The last editor the user could type in (not a read-only passage document). */
  private lastEditor: vscode.TextEditor | undefined = editable(vscode.window.activeTextEditor);

  constructor(private readonly passages: PassageDocuments) {
    super();
    this._register(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        this.lastEditor = editable(editor) ?? this.lastEditor;
      }),
    );
  }

  async open(source: ChatSource, chatColumn?: vscode.ViewColumn, focus?: QuoteFocus): Promise<void> {
    if (source.kind === 'web') {
      // Web pages open in the browser, and only http(s) ones (a source's URL comes from the web).
      if (isOpenableLink(source.url)) {
        await this.openExternal(vscode.Uri.parse(source.url, true));
      }
      return;
    }
    // Never in the chat's group, which it would hide: the previous source's group, the group last
    // edited in, another, or beside.
    const column = sourceColumnFor(chatColumn, vscode.window.visibleTextEditors.find((e) => e === this.lastEditor)?.viewColumn);
    if (source.kind === 'selection') {
      return this.openSelection(source, column);
    }
    await this.passages.open(passageOf(source), focus, column);
  }

  async openExternal(uri: vscode.Uri): Promise<void> {
    await vscode.env.openExternal(uri);
  }

  private async openSelection(source: SelectionSource, viewColumn: vscode.ViewColumn | undefined): Promise<void> {
    const { startLine, startCharacter, endLine, endCharacter } = source.range;
    const range = new vscode.Range(startLine, startCharacter, endLine, endCharacter);
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(source.uri, true));
    const editor = await vscode.window.showTextDocument(document, {
      selection: range,
      preview: true,
      ...(viewColumn !== undefined ? { viewColumn } : {}),
    });
    sourceOpenedIn(editor.viewColumn);
  }

  /** Into the editor the user last worked in (the chat panel has the focus when this runs). */
  async insertAtCursor(code: string): Promise<void> {
    const visible = vscode.window.visibleTextEditors;
    const editor = visible.find((e) => e === this.lastEditor) ?? visible.find((e) => editable(e));
    if (!editor) {
      void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: open an editor to insert the code into.'));
      return;
    }
    const inserted = await editor.edit((edit) => {
      for (const selection of editor.selections) {
        edit.replace(selection, code);
      }
    });
    if (inserted) {
      await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
    }
  }
}
