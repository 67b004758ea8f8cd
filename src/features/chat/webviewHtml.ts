import * as vscode from 'vscode';
import { renderChatPage } from './chatPage';

/** The folder of the webview bundles: the only local resource root. */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    enableFindWidget: true,
    retainContextWhenHidden: true,
    localResourceRoots: [webviewRoot(extensionUri)],
  };
}

export function renderChatHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const root = webviewRoot(extensionUri);
  const asset = (...path: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(root, ...path)).toString();
  return renderChatPage({
    cspSource: webview.cspSource,
    scriptUri: asset('chat.js'),
    styleUris: [asset('codicons', 'codicon.css'), asset('chat.css')],
    l10nBundle: vscode.l10n.bundle,
    language: vscode.env.language,
  });
}
