// The latency benchmark's floor: a bare extension that does DocChat's UI operations with no work
// behind them, installed beside DocChat in the same code-server (test/bench/latency.ts). What it
// takes is what VS Code itself takes (the extension host's IPC, the workbench, the webview), so
// DocChat's own overhead is DocChat's time minus this one's. Never shipped (.vscodeignore ships
// dist/ only); plain CommonJS so it installs as it is, with nothing to build.
//
// - Tree "Floor Stores": one store whose children are 50 ready rows `note-<n>.md` and a
//   "Load more" row that appends the next 50 (DocChat's page size).
// - "Floor: Search": a quick pick that, after the same debounce as DocChat's search
//   (FLOOR_DEBOUNCE_MS), shows three ready result rows for `quasar<n>x`: `round-<n>.md`.
// - "Floor: Open Chat": a webview panel that paints the messages of a static HTML file
//   (FLOOR_MESSAGES_FILE) and answers every question at once with a ready token.
// The webview marks the same moments as DocChat's chat (`floor:*` performance marks).
'use strict';
const vscode = require('vscode');
const { readFileSync } = require('node:fs');

const PAGE_SIZE = 50;
const STORE = { kind: 'store', id: 'floor-store', label: 'floor-big' };
const READY_TOKEN = 'Invoices are kept for **ten years** after the end of the fiscal year [1].';

class FloorTree {
  constructor() {
    this.shown = PAGE_SIZE;
    this.changed = new vscode.EventEmitter();
    this.onDidChangeTreeData = this.changed.event;
  }

  refresh() {
    this.shown = PAGE_SIZE;
    this.changed.fire(undefined);
  }

  loadMore() {
    this.shown += PAGE_SIZE;
    this.changed.fire(STORE);
  }

  getChildren(node) {
    if (!node) return [STORE];
    if (node.kind !== 'store') return [];
    const rows = [];
    for (let n = 0; n < this.shown; n++) rows.push({ kind: 'file', id: `note-${n}`, label: `note-${n}.md` });
    rows.push({ kind: 'loadMore', id: 'load-more', label: 'Load more' });
    return rows;
  }

  getTreeItem(node) {
    if (node.kind === 'store') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = node.id;
      item.iconPath = new vscode.ThemeIcon('database');
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    if (node.kind === 'loadMore') {
      item.description = `${this.shown} shown`;
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.command = { command: 'floor.loadMore', title: 'Load more' };
    } else {
      item.description = 'completed · 1 KB';
      item.iconPath = new vscode.ThemeIcon('file');
    }
    return item;
  }
}

/** The three ready rows for `quasar<n>x`, shaped as DocChat's results (file in the description). */
function resultItems(query) {
  const found = /quasar(\d+)x/.exec(query);
  if (!found) return [{ label: `No results for "${query}"`, alwaysShow: true }];
  return [0.91, 0.42, 0.4].map((score, i) => ({
    label: '',
    description: `${i === 0 ? `round-${found[1]}.md` : i === 1 ? 'retention.md' : 'round-0.md'} · score ${score.toFixed(2)}`,
    detail: `The marker word quasar${found[1]}x appears only in this file.`,
    alwaysShow: true,
  }));
}

function openSearch() {
  const debounceMs = Number(process.env.FLOOR_DEBOUNCE_MS ?? 250);
  const picker = vscode.window.createQuickPick();
  picker.matchOnDescription = false;
  picker.matchOnDetail = false;
  picker.placeholder = 'Search the floor';
  let timer;
  picker.onDidChangeValue((value) => {
    clearTimeout(timer);
    timer = setTimeout(() => (picker.items = resultItems(value)), debounceMs);
  });
  picker.onDidHide(() => {
    clearTimeout(timer);
    picker.dispose();
  });
  picker.show();
}

function chatHtml(messagesHtml) {
  const nonce = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<script nonce="${nonce}">performance.mark('floor:head');</script>
<style nonce="${nonce}">
  html, body { height: 100%; margin: 0; }
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
  #app { display: flex; flex-direction: column; height: 100%; }
  .messages { flex: 1; overflow-y: auto; padding: 0 12px; }
  article { margin: 12px 0; }
  article.user { font-weight: 600; }
  pre { overflow-x: auto; background: var(--vscode-textCodeBlock-background); padding: 8px; }
  .composer-input { margin: 8px 12px; min-height: 3em; }
</style>
</head>
<body>
<div id="app">
<main class="messages" aria-live="polite">${messagesHtml}</main>
<textarea class="composer-input" aria-label="Message"></textarea>
</div>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  const messages = document.querySelector('.messages');
  const input = document.querySelector('.composer-input');
  const afterPaint = (name, detail) =>
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => performance.mark(name, { detail });
      channel.port2.postMessage(undefined);
    });
  messages.scrollTop = messages.scrollHeight;
  afterPaint('floor:conversation-painted', { messages: messages.querySelectorAll('article').length });
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.shiftKey) return;
    event.preventDefault();
    performance.mark('floor:send', { startTime: event.timeStamp });
    const question = document.createElement('article');
    question.className = 'user';
    question.textContent = input.value;
    messages.append(question);
    vscode.postMessage({ type: 'ask', text: input.value });
    input.value = '';
  });
  window.addEventListener('message', (event) => {
    if (event.data?.type !== 'token') return;
    const answer = document.createElement('article');
    answer.className = 'assistant';
    answer.textContent = event.data.text;
    messages.append(answer);
    messages.scrollTop = messages.scrollHeight;
    afterPaint('floor:first-text-painted');
  });
</script>
</body>
</html>`;
}

function openChat() {
  const file = process.env.FLOOR_MESSAGES_FILE;
  const messagesHtml = file ? readFileSync(file, 'utf8') : '';
  const panel = vscode.window.createWebviewPanel(
    'floor.chat',
    'Floor Chat',
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
    { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [] },
  );
  panel.webview.onDidReceiveMessage((message) => {
    if (message?.type === 'ask') void panel.webview.postMessage({ type: 'token', text: READY_TOKEN });
  });
  panel.webview.html = chatHtml(messagesHtml);
}

exports.activate = function activate(context) {
  const tree = new FloorTree();
  context.subscriptions.push(
    vscode.window.createTreeView('floor.stores', { treeDataProvider: tree }),
    vscode.commands.registerCommand('floor.refresh', () => tree.refresh()),
    vscode.commands.registerCommand('floor.loadMore', () => tree.loadMore()),
    vscode.commands.registerCommand('floor.search', openSearch),
    vscode.commands.registerCommand('floor.openChat', openChat),
  );
};

exports.deactivate = function deactivate() {};
