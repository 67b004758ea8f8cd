import * as vscode from 'vscode';
import type { HostMessage, WebviewMessage } from '../../../../src/chatCore/protocol';

/** A webview panel whose webview is this test: it sends messages and records every post. */
export class RecordingWebviewPanel {
  readonly posted: HostMessage[] = [];
  private readonly fromWebview = new vscode.EventEmitter<unknown>();
  private readonly onPost = new vscode.EventEmitter<void>();
  private readonly disposed = new vscode.EventEmitter<void>();
  readonly viewColumn = vscode.ViewColumn.Two;
  readonly visible = true;
  iconPath: unknown;
  readonly webview = {
    options: {},
    html: '',
    cspSource: 'https://webview.test',
    asWebviewUri: (uri: vscode.Uri) => uri,
    onDidReceiveMessage: this.fromWebview.event,
    postMessage: async (message: HostMessage) => {
      // A webview gets a copy, as it is when posted.
      this.posted.push(structuredClone(message));
      this.onPost.fire();
      return true;
    },
  };
  readonly onDidDispose = this.disposed.event;

  send(message: WebviewMessage): void {
    this.fromWebview.fire(message);
  }

  /** The first message posted at or after index `since` that matches. */
  waitFor<T extends HostMessage>(matches: (m: HostMessage) => m is T, what: string, since = 0, timeoutMs = 30_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const find = () => this.posted.slice(since).find(matches);
      const found = find();
      if (found) return resolve(found);
      const timer = setTimeout(() => {
        listener.dispose();
        reject(new Error(`The controller never posted ${what}; posted: ${this.posted.map((m) => m.type).join(', ')}`));
      }, timeoutMs);
      const listener = this.onPost.event(() => {
        const match = find();
        if (match) {
          clearTimeout(timer);
          listener.dispose();
          resolve(match);
        }
      });
    });
  }

  /** The text a stream delivered, by its request id. */
  streamedText(requestId: string): string {
    return this.posted
      .filter((m): m is Extract<HostMessage, { type: 'streamDelta' }> => m.type === 'streamDelta' && m.requestId === requestId)
      .map((m) => m.text)
      .join('');
  }

  reveal(): void {}

  dispose(): void {
    this.disposed.fire();
  }
}
