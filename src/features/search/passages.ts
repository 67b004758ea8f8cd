import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PassageSource } from '../../chatCore/protocol';
import { Disposable } from '../../common/lifecycle';
import type { Services } from '../../services';
import { describeError } from '../../services/errors';
import { ContextKeys } from '../../common/constants';
import { realTimers } from '../../common/timers';
import { HIGHLIGHT_MS, PassageHighlights, type QuoteFocus } from './highlights';
import { locatePassage } from '../../chatCore/passageLocate';
import type { TextSpan } from '../../chatCore/quoteLocate';
import { highlightedSpans, PASSAGE_HIGHLIGHT, QUOTE_HIGHLIGHT } from './passageLocate';
import { sourceColumnFor, sourceOpenedIn } from './sourceColumn';

export const PASSAGE_SCHEME = 'docchat';

/** A search result as the extension passes it around (and to the chat as context). */
export interface Passage {
  storeId: string;
  storeName: string;
  fileId: string;
  filename: string;
  content: string;
  score: number;
}

/** A chat source as a passage: the fields a chat message may leave out get their neutral values. */
export function passageOf(source: Omit<PassageSource, 'kind'>): Passage {
  return {
    storeId: source.storeId,
    storeName: source.storeName ?? '',
    fileId: source.fileId,
    filename: source.filename ?? source.fileId,
    content: source.content,
    score: source.score ?? 0,
  };
}

/** The workspace file a store file was synced from, when a feature knows it. */
export type ExactFileResolver = (storeId: string, fileId: string) => Promise<vscode.Uri | undefined>;

/** Characters that would make a file name a glob pattern: such names are not looked up. */
const GLOB_SPECIAL = /[[\]{}*?!,]/;

/**
 * Opens search passages: in the workspace file of the same name when the passage can be found
 * there, otherwise in a read-only `docchat:` document holding the converted markdown of the
 * store file. Either way the passage is highlighted and scrolled into view.
 */
export class PassageDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  /** Passage text to highlight, by document uri, until an edit, a move, Escape or a few seconds. */
  private readonly highlights = new PassageHighlights(
    (uri, anyLeft) => this.undecorate(uri, anyLeft),
    realTimers,
    // Tests that look at a highlight before clearing it hold it longer than the few seconds.
    Number(process.env.DOCCHAT_PASSAGE_HIGHLIGHT_MS) || HIGHLIGHT_MS,
  );
  /** Passages shown in virtual documents, used when the converted file cannot be loaded. */
  private readonly fallbacks = new Map<string, Passage>();
  private readonly exactResolvers: ExactFileResolver[] = [];
  /** A whole passage: its lines (a chunk's first and last lines are cut anywhere). */
  private readonly decoration = this._register(
    vscode.window.createTextEditorDecorationType({
      // Drawn under the selection, so the selection shows.
      backgroundColor: new vscode.ThemeColor(PASSAGE_HIGHLIGHT.background),
      borderColor: new vscode.ThemeColor(PASSAGE_HIGHLIGHT.border),
      borderStyle: 'dotted',
      borderWidth: '1px',
      isWholeLine: true,
      overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.findMatchForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Center,
    }),
  );
  /** What an answer quoted of a passage: its characters, from where the quote starts to where it ends. */
  private readonly quoteDecoration = this._register(
    vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor(QUOTE_HIGHLIGHT.background),
      borderColor: new vscode.ThemeColor(QUOTE_HIGHLIGHT.border),
      borderStyle: 'solid',
      borderWidth: '1px',
      overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.findMatchForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Center,
    }),
  );

  constructor(
    private readonly services: Services,
    /** Another scheme lets a second instance run next to the extension's (tests). */
    private readonly scheme: string = PASSAGE_SCHEME,
  ) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(scheme, this));
    this._register(vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => this.decorate(e))));
    this._register(
      vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length && this.highlights.edited(e.document.uri.toString())),
    );
    this._register(
      vscode.window.onDidChangeTextEditorSelection((e) =>
        this.highlights.selectionChanged(
          e.textEditor.document.uri.toString(),
          e.kind === vscode.TextEditorSelectionChangeKind.Keyboard || e.kind === vscode.TextEditorSelectionChangeKind.Mouse,
        ),
      ),
    );
    this._register(vscode.workspace.onDidCloseTextDocument((document) => this.highlights.clear(document.uri.toString())));
    this._register({ dispose: () => this.highlights.dispose() });
  }

  /** Escape in an editor with a highlighted passage. */
  clearHighlights(): void {
    const editor = vscode.window.activeTextEditor;
    this.highlights.clear(editor?.document.uri.toString());
  }

  private undecorate(uri: string, anyLeft: boolean): void {
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() !== uri) continue;
      editor.setDecorations(this.decoration, []);
      editor.setDecorations(this.quoteDecoration, []);
    }
    void vscode.commands.executeCommand('setContext', ContextKeys.passageHighlighted, anyLeft);
  }

  uriFor(p: Passage): vscode.Uri {
    const name = /\.(md|markdown)$/i.test(p.filename) ? p.filename : `${p.filename}.md`;
    const query = new URLSearchParams({ store: p.storeId, file: p.fileId }).toString();
    return vscode.Uri.from({ scheme: this.scheme, path: `/${p.storeName || p.storeId}/${name}`, query });
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const storeId = query.get('store');
    const fileId = query.get('file');
    const fallback = this.fallbacks.get(uri.toString());
    const client = this.services.connection.documents;
    if (!storeId || !fileId || !client) {
      return fallback?.content ?? '';
    }
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    try {
      return await client.retrieveVectorStoreFileContent(storeId, fileId, { signal: abort.signal });
    } catch (error) {
      this.services.log.warn(`Converted content of ${fileId} unavailable: ${describeError(error)}`);
      return fallback?.content ?? `The converted file could not be loaded: ${describeError(error)}`;
    } finally {
      listener.dispose();
    }
  }

  /** Passages of store files a resolver knows open that exact workspace file (folder sync). */
  addExactFileResolver(resolver: ExactFileResolver): vscode.Disposable {
    this.exactResolvers.push(resolver);
    return { dispose: () => void this.exactResolvers.splice(this.exactResolvers.indexOf(resolver), 1) };
  }

  private async openExactFile(
    p: Passage,
    focus: QuoteFocus | undefined,
    viewColumn: vscode.ViewColumn | undefined,
  ): Promise<vscode.TextEditor | undefined> {
    for (const resolve of this.exactResolvers) {
      const uri = await resolve(p.storeId, p.fileId).catch(() => undefined);
      if (!uri) continue;
      try {
        return await this.showHighlighted(await vscode.workspace.openTextDocument(uri), p.content, focus, viewColumn);
      } catch (error) {
        // A PDF or DOCX has no text editor: its converted markdown shows the passage instead.
        this.services.log.debug(`Could not open ${uri.toString()}: ${describeError(error)}`);
      }
    }
    return undefined;
  }

  /**
   * Opens the passage; resolves with the editor showing it. With `focus` (what an answer quoted of
   * it), the quotes are highlighted and scrolled to rather than the whole passage. It opens in
   * `viewColumn`; by default in the active group unless that shows the chat (see sourceColumn).
   */
  async open(p: Passage, focus?: QuoteFocus, viewColumn: vscode.ViewColumn | undefined = sourceColumnFor()): Promise<vscode.TextEditor> {
    const local = (await this.openExactFile(p, focus, viewColumn)) ?? (await this.findWorkspaceFile(p, focus, viewColumn));
    if (local) {
      return local;
    }
    const uri = this.uriFor(p);
    this.fallbacks.set(uri.toString(), p);
    let document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== 'markdown') {
      document = await vscode.languages.setTextDocumentLanguage(document, 'markdown');
    }
    return this.showHighlighted(document, p.content, focus, viewColumn);
  }

  /** Shows a document with the passage (or its quotes) highlighted and scrolled into view. */
  private async showHighlighted(
    document: vscode.TextDocument,
    passage: string,
    focus: QuoteFocus | undefined,
    viewColumn: vscode.ViewColumn | undefined,
  ): Promise<vscode.TextEditor> {
    // `viewColumn` undefined: the active group, as no group shows the chat (see sourceColumn).
    const editor = await vscode.window.showTextDocument(document, { preview: true, ...(viewColumn !== undefined ? { viewColumn } : {}) });
    sourceOpenedIn(editor.viewColumn);
    // Shown after the editor opened: opening it moves no highlight away.
    this.highlights.show(document.uri.toString(), passage, focus);
    this.decorate(editor, true);
    void vscode.commands.executeCommand('setContext', ContextKeys.passageHighlighted, true);
    return editor;
  }

  private async findWorkspaceFile(
    p: Passage,
    focus: QuoteFocus | undefined,
    viewColumn: vscode.ViewColumn | undefined,
  ): Promise<vscode.TextEditor | undefined> {
    const base = path.posix.basename(p.filename);
    if (!base || GLOB_SPECIAL.test(base) || !vscode.workspace.workspaceFolders?.length) {
      return undefined;
    }
    const candidates = await vscode.workspace.findFiles(`**/${base}`, '**/node_modules/**', 5);
    for (const uri of candidates) {
      try {
        const document = await vscode.workspace.openTextDocument(uri);
        if (!locatePassage(document.getText(), p.content)) {
          continue;
        }
        return await this.showHighlighted(document, p.content, focus, viewColumn);
      } catch (error) {
        this.services.log.debug(`Could not open ${uri.toString()}: ${describeError(error)}`);
      }
    }
    return undefined;
  }

  private decorate(editor: vscode.TextEditor, reveal = false): void {
    const uri = editor.document.uri.toString();
    const chunk = this.highlights.passage(uri);
    if (!chunk) {
      return;
    }
    const text = editor.document.getText();
    const span = locatePassage(text, chunk);
    if (!span) {
      editor.setDecorations(this.decoration, []);
      editor.setDecorations(this.quoteDecoration, []);
      return;
    }
    const { spans, focused, wholeLines } = highlightedSpans(text, span, this.highlights.focus(uri));
    const toRange = (s: TextSpan) => new vscode.Range(editor.document.positionAt(s.start), editor.document.positionAt(s.end));
    editor.setDecorations(this.decoration, wholeLines ? spans.map(toRange) : []);
    editor.setDecorations(this.quoteDecoration, wholeLines ? [] : spans.map(toRange));
    if (reveal) {
      const range = toRange(focused);
      editor.selection = new vscode.Selection(range.start, range.start);
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }
}
