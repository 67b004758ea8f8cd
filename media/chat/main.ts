// Webview entry of the DocChat chat panel (bundled by esbuild for the browser).
import * as l10n from '@vscode/l10n';
import DOMPurify from 'dompurify';
import type { HostMessage } from '../../src/chatCore/protocol';
import { ChatApp, type WebviewHost } from './app';
import { HighlightLoader } from './highlightLoader';
import { createMarkdownPipeline, highlightPending } from './markdown';
import './chat.css';

declare function acquireVsCodeApi(): WebviewHost;

const host = acquireVsCodeApi();
const root = document.getElementById('app')!;
// highlight.js sits next to this script and loads with its nonce (readable while this runs).
const script = document.currentScript as HTMLScriptElement | null;
// The host puts VS Code's translations of the webview's strings (`vscode.l10n.bundle`) on the page;
// without them (English) l10n.t returns its argument.
const bundle = root.dataset.l10n;
if (bundle) l10n.config({ contents: JSON.parse(bundle) as Record<string, string> });
const highlighter = new HighlightLoader(script, (hljs) => highlightPending(root, hljs, DOMPurify));
const app = new ChatApp(root, host, createMarkdownPipeline(DOMPurify, highlighter));

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  // Only the extension host posts into this frame; anything malformed is ignored.
  const message = event.data;
  if (message && typeof message === 'object' && typeof message.type === 'string') {
    app.receive(message);
  }
});
host.postMessage({ type: 'ready' });
