// Webview entry of the DocChat chat panel (bundled by esbuild for the browser).
import DOMPurify from 'dompurify';
import type { HostMessage } from '../../src/chatCore/protocol';
import { ChatApp, type WebviewHost } from './app';
import { createMarkdownPipeline } from './markdown';
import './chat.css';

declare function acquireVsCodeApi(): WebviewHost;

const host = acquireVsCodeApi();
const root = document.getElementById('app')!;
const app = new ChatApp(root, host, createMarkdownPipeline(DOMPurify));

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  // Only the extension host posts into this frame; anything malformed is ignored.
  const message = event.data;
  if (message && typeof message === 'object' && typeof message.type === 'string') {
    app.receive(message);
  }
});
host.postMessage({ type: 'ready' });
