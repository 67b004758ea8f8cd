import * as vscode from 'vscode';
import { atFirstUse } from '../../common/atFirstUse';
import { ViewIds } from '../../common/constants';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import type * as Protocol from '../../chatCore/protocol';
import type { HostMessage, WebviewMessage } from '../../chatCore/protocol';
import { renderChatHtml, webviewOptions } from './webviewHtml';

// The protocol's message check is zod's: it loads with the panel's first message, not at activation.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const protocol = atFirstUse(() => require('../../chatCore/protocol') as typeof Protocol);

export const CHAT_VIEW_TYPE = ViewIds.chat;

export interface ChatPanelHandler {
  /** The full state, posted first whenever the webview (re)starts. */
  snapshot(): HostMessage[];
  /** Every message but `ready`, which the panel answers with the snapshot. */
  handle(message: Exclude<WebviewMessage, { type: 'ready' }>): void;
}

/**
 * The webview panel: owns its HTML, validates every incoming message against the protocol
 * (anything else is ignored and logged), and holds outgoing posts until the webview says `ready`.
 */
export class ChatPanel extends Disposable {
  private ready = false;
  private queue: HostMessage[] = [];
  private readonly _onDidDispose = this._register(new vscode.EventEmitter<void>());
  readonly onDidDispose = this._onDidDispose.event;

  /** `column`: where the chat goes; by default beside what is being read. */
  static create(
    extensionUri: vscode.Uri,
    handler: ChatPanelHandler,
    log: Logger,
    preserveFocus = false,
    column?: vscode.ViewColumn,
  ): ChatPanel {
    const panel = vscode.window.createWebviewPanel(
      CHAT_VIEW_TYPE,
      'DocChat',
      // Beside what is being read (code, a document, the walkthrough whose step opened it), which
      // stays in view; in the active group when that group is empty.
      {
        viewColumn: column ?? (vscode.window.tabGroups.activeTabGroup.activeTab ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active),
        preserveFocus,
      },
      webviewOptions(extensionUri),
    );
    return new ChatPanel(panel, extensionUri, handler, log);
  }

  /** Also used for a panel VS Code restores after a reload (the serializer hands it over). */
  constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly handler: ChatPanelHandler,
    private readonly log: Logger,
  ) {
    super();
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icons', 'docchat.svg');
    this._register(panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
    this._register(
      panel.onDidDispose(() => {
        this._onDidDispose.fire();
        this.dispose();
      }),
    );
    panel.webview.html = renderChatHtml(panel.webview, extensionUri);
  }

  /**
   * The chat's tabs: with no live panel (the caller checks), those VS Code brought back after a
   * reload but has not handed to DocChat yet. It revives a webview only when its tab is shown, so a
   * chat hidden behind another editor stays a tab with nothing behind it until then. VS Code names
   * a webview tab's type with or without its own prefix; only DocChat's chat matches either.
   */
  static unrestoredTabs(): vscode.Tab[] {
    const types = new Set([CHAT_VIEW_TYPE, `mainThreadWebview-${CHAT_VIEW_TYPE}`]);
    return vscode.window.tabGroups.all.flatMap((group) =>
      group.tabs.filter((tab) => tab.input instanceof vscode.TabInputWebview && types.has(tab.input.viewType)),
    );
  }

  reveal(preserveFocus = false): void {
    this.panel.reveal(undefined, preserveFocus);
  }

  post(message: HostMessage): void {
    if (!this.ready) {
      this.queue.push(message);
      return;
    }
    void this.panel.webview
      .postMessage(message)
      .then(undefined, (error: unknown) => this.log.warn(`Could not post ${message.type}: ${String(error)}`));
  }

  private receive(raw: unknown): void {
    const message = protocol().parseWebviewMessage(raw);
    if (!message) {
      const type =
        typeof raw === 'object' && raw !== null && 'type' in raw ? String((raw as { type: unknown }).type).slice(0, 40) : typeof raw;
      this.log.warn(`Ignored a message from the chat webview that is not part of the protocol (${type}).`);
      return;
    }
    if (message.type === 'ready') {
      // The snapshot supersedes whatever state or stream update was waiting; only requests to
      // focus the composer still mean something.
      const pending = this.queue.filter((m) => m.type === 'focusComposer');
      this.queue = [];
      this.ready = true;
      for (const m of [...this.handler.snapshot(), ...pending]) {
        this.post(m);
      }
      return;
    }
    this.handler.handle(message);
  }

  override dispose(): void {
    if (this.isDisposed) {
      return;
    }
    super.dispose();
    this.panel.dispose();
  }
}
