/**
 * What the chat webview can make the host do, through the real path: a message posted by the
 * webview goes to the real ChatPanel (protocol check), the real ChatController (router, link
 * check, command allow-list) and the real ChatSourceOpener, and this test looks only at what
 * reaches VS Code: the URIs `env.openExternal` receives and the commands `commands.executeCommand`
 * runs. A link from model output (`command:`, `file:`, `vscode:`, `javascript:`…) never gets there.
 * `vscode` is the only module faked.
 */
import * as assert from 'node:assert/strict';
import path from 'node:path';
import { Commands, Settings } from '../../../src/common/constants';
import type { Logger } from '../../../src/common/log';
import type * as ChatControllerModule from '../../../src/features/chat/chatController';
import type * as SourceOpenerModule from '../../../src/features/chat/sourceOpener';
import { useFakeVscode, type FakeVscodeScope, FakeEventEmitter } from '../../support/fakeVscode';
import { MemoryState } from '../features/chat/fixtures';

const SRC = path.resolve(__dirname, '../../../src');
const disposable = { dispose: () => undefined };

/** What reached VS Code. */
interface Reached {
  opened: string[];
  executed: unknown[][];
  copied: string[];
  status: string[];
}

function fakeVscode(reached: Reached) {
  const EventEmitter = FakeEventEmitter;
  /** Like VS Code's: `parse(value, true)` throws on a value without a scheme. */
  const parse = (value: string, strict = false) => {
    const scheme = /^([a-zA-Z][\w+.-]*):/.exec(value)?.[1];
    if (strict && !scheme) throw new Error(`[UriError]: Scheme is missing: {scheme: "", path: "${value}"}`);
    return { scheme: scheme ?? 'file', toString: () => value };
  };
  const Uri = {
    parse,
    joinPath: (base: { path: string }, ...parts: string[]) => ({ path: [base.path, ...parts].join('/'), toString: () => parts.join('/') }),
  };
  return {
    EventEmitter,
    Uri,
    ViewColumn: { Beside: -2, One: 1 },
    CancellationError: class CancellationError extends Error {},
    ThemeIcon: class ThemeIcon {
      constructor(readonly id: string) {}
    },
    ThemeColor: class ThemeColor {
      constructor(readonly id: string) {}
    },
    QuickPickItemKind: { Separator: -1, Default: 0 },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    l10n: {
      bundle: undefined,
      t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)])),
    },
    env: {
      language: 'en',
      openExternal: async (uri: { toString(): string }) => {
        reached.opened.push(uri.toString());
        return true;
      },
      clipboard: {
        writeText: async (text: string) => {
          reached.copied.push(text);
        },
      },
    },
    commands: {
      executeCommand: async (...args: unknown[]) => {
        reached.executed.push(args);
        return undefined;
      },
    },
    window: {
      activeTextEditor: undefined,
      visibleTextEditors: [],
      onDidChangeActiveTextEditor: () => disposable,
      onDidChangeWindowState: () => disposable,
      setStatusBarMessage: (text: string) => {
        reached.status.push(text);
        return disposable;
      },
      showInformationMessage: async () => undefined,
    },
    workspace: { fs: { isWritableFileSystem: () => true } },
  };
}

const warnings: string[] = [];
const log: Logger = (() => {
  const note = () => undefined;
  const logger = {
    trace: note,
    debug: note,
    info: note,
    warn: (m: string) => warnings.push(m),
    error: note,
    child: () => logger,
    sink: () => note,
  };
  return logger as unknown as Logger;
})();

/** The services the controller reads, disconnected (no gateway, no documents service). */
function fakeServices() {
  const none = { event: () => disposable };
  return {
    connection: {
      onDidChange: none.event,
      use: async () => undefined,
      gateway: { listCompletionModels: async () => [{ id: 'gpt-4o' }, { id: 'llama-3.1-8b' }] },
      documents: undefined,
      gatewayUnavailable: undefined,
      state: { kind: 'idle' },
      unreachable: async () => undefined,
    },
    config: {
      onDidChange: none.event,
      current: { gatewayUrl: '', documentsUrl: '', defaultModel: '', projectCode: '', searchMaxResults: 8, announceAnswers: false },
    },
    modelServer: { choice: undefined },
    documentsEvents: { onDidChangeStore: none.event, onDidDeleteStore: none.event, onDidListStores: none.event },
    recentStores: { sort: (ids: string[]) => ids, touch: async () => undefined },
    grounding: { resolve: () => undefined, choice: { kind: 'none' }, remember: async () => undefined },
    errors: { report: () => undefined },
  };
}

describe('chat host: what a webview message can make VS Code do (real panel, controller and source opener)', () => {
  let scope: FakeVscodeScope;
  let reached: Reached;
  let controller: ChatControllerModule.ChatController;
  let opener: SourceOpenerModule.ChatSourceOpener;
  let send: (message: unknown) => void;

  beforeEach(() => {
    reached = { opened: [], executed: [], copied: [], status: [] };
    warnings.length = 0;
    scope = useFakeVscode(fakeVscode(reached));
    const { ChatController } = scope.load<typeof ChatControllerModule>(path.join(SRC, 'features/chat/chatController'));
    const { ChatSourceOpener } = scope.load<typeof SourceOpenerModule>(path.join(SRC, 'features/chat/sourceOpener'));
    opener = new ChatSourceOpener({} as never);
    const context = { globalState: new MemoryState(), workspaceState: new MemoryState(), extensionUri: { path: '/ext' } };
    controller = new ChatController(context as never, fakeServices() as never, opener, log);
    let listener: ((message: unknown) => void) | undefined;
    const panel = {
      webview: {
        options: undefined,
        html: '',
        cspSource: 'vscode-webview://fake',
        asWebviewUri: (uri: { path: string }) => ({ toString: () => `vscode-webview://fake${uri.path}` }),
        onDidReceiveMessage: (l: (message: unknown) => void) => {
          listener = l;
          return disposable;
        },
        postMessage: async () => true,
      },
      onDidDispose: () => disposable,
      dispose: () => undefined,
      reveal: () => undefined,
      viewColumn: 2,
    };
    controller.restore(panel as never);
    send = (message) => listener!(message);
    send({ type: 'ready' });
  });

  afterEach(() => {
    controller?.dispose();
    opener?.dispose();
    scope.dispose();
  });

  /** Lets the controller's `void` promises settle (openExternal and executeCommand are async). */
  const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('opens http and https links in the browser, exactly as sent', async () => {
    send({ type: 'openLink', href: 'https://example.com/docs?q=1#top' });
    send({ type: 'openLink', href: 'http://intranet.example/handbook' });
    await settled();
    assert.deepEqual(reached.opened, ['https://example.com/docs?q=1#top', 'http://intranet.example/handbook']);
    assert.deepEqual(reached.executed, []);
  });

  const refused: [string, string][] = [
    ['mailto', 'mailto:someone@example.com'],
    ['command', 'command:workbench.action.terminal.new'],
    ['command with arguments', 'command:vscode.open?%5B%22file%3A%2F%2F%2Fetc%2Fpasswd%22%5D'],
    ['file', 'file:///etc/passwd'],
    ['vscode', 'vscode://settings/security.workspace.trust.enabled'],
    ['vscode-insiders', 'vscode-insiders://ms-vscode.remote/x'],
    ['javascript', 'javascript:alert(1)'],
    ['javascript in capitals', 'JAVASCRIPT:alert(1)'],
    ['data', 'data:text/html,<script>alert(1)</script>'],
    ['relative', '../../etc/passwd'],
    ['root-relative', '/settings'],
    ['protocol-relative', '//example.com/x'],
    ['fragment only', '#top'],
    ['malformed', 'http://'],
    ['malformed host', 'https://exa mple.com/'],
    ['leading space', ' javascript:alert(1)'],
  ];
  for (const [scheme, href] of refused) {
    it(`opens nothing and runs no command for a ${scheme} link (and logs why)`, async () => {
      send({ type: 'openLink', href });
      await settled();
      assert.deepEqual(reached.opened, [], href);
      assert.deepEqual(reached.executed, [], href);
      assert.equal(warnings.length, 1, `one warning for ${href}: ${warnings.join(' | ')}`);
      assert.match(warnings[0]!, /Did not open a link|not part of the protocol/);
    });
  }

  it('logs a refused link by its first 80 characters only', async () => {
    const href = `command:workbench.action.terminal.sendSequence?${'a'.repeat(200)}`;
    send({ type: 'openLink', href });
    await settled();
    assert.deepEqual(warnings, [`Did not open a link with a scheme other than http(s): ${href.slice(0, 80)}`]);
  });

  it("a web source's link is opened only when it is http(s)", async () => {
    await opener.open({ kind: 'web', number: 1, title: 'x', url: 'command:workbench.action.terminal.new' } as never);
    await opener.open({ kind: 'web', number: 2, title: 'x', url: 'file:///etc/passwd' } as never);
    await opener.open({ kind: 'web', number: 3, title: 'x', url: 'https://example.com/page' } as never);
    assert.deepEqual(reached.opened, ['https://example.com/page']);
    assert.deepEqual(reached.executed, []);
  });

  it('copies a code block to the clipboard and nothing else', async () => {
    send({ type: 'copyCode', code: 'rm -rf /tmp/x' });
    await settled();
    assert.deepEqual(reached.copied, ['rm -rf /tmp/x']);
    assert.deepEqual(reached.status, ['DocChat: code copied']);
    assert.deepEqual(reached.executed, []);
    assert.deepEqual(reached.opened, []);
  });

  it('runs exactly the allow-listed command, with its fixed arguments, for each panel button', async () => {
    const expected: Record<string, unknown[]> = {
      setGatewayApiKey: [Commands.setGatewayApiKey],
      setDocumentsToken: [Commands.setDocumentsToken],
      openGatewaySettings: [Commands.openSettings, Settings.gatewayUrl],
      showOutput: [Commands.showOutput],
      chooseStore: [Commands.chooseStoreForChat],
      attachFiles: [Commands.attachFiles],
      useLanguageModel: [Commands.useLanguageModel],
    };
    for (const [action, command] of Object.entries(expected)) {
      reached.executed.length = 0;
      send({ type: 'runAction', action });
      await settled();
      assert.deepEqual(reached.executed, [command], action);
    }
    assert.deepEqual(reached.opened, []);
  });

  it('says in the status bar that the model list was read again, since a list that stays the same shows nothing', async () => {
    send({ type: 'refreshModels' });
    await settled();
    assert.deepEqual(reached.status, ['DocChat: model list refreshed (2 models).']);
    assert.deepEqual(reached.executed, []);
  });

  it('runs nothing for an action outside the allow-list, a command id, or extra arguments', async () => {
    for (const message of [
      { type: 'runAction', action: 'workbench.action.terminal.new' },
      { type: 'runAction', action: Commands.setGatewayApiKey },
      { type: 'runAction', action: 'showOutput', args: ['x'] },
      { type: 'runAction', action: 'toString' },
      { type: 'runAction', action: '__proto__' },
      { type: 'runAction' },
      { type: 'executeCommand', command: 'workbench.action.reloadWindow' },
    ]) {
      send(message);
    }
    await settled();
    assert.deepEqual(reached.executed, []);
    assert.equal(warnings.length, 7, warnings.join(' | '));
    for (const w of warnings) assert.match(w, /^Ignored a message from the chat webview that is not part of the protocol/);
  });
});
