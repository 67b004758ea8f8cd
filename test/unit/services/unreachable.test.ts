/**
 * "A request could not reach its server → check the local backend" has one route,
 * `ConnectionService.unreachable`, whichever part of DocChat notices it: a client's transport (a
 * request that could not connect), the error reporter (a network error shown to the user) and the
 * chat (an answer that failed on the network). Each ends in exactly one check of the backend, and
 * reports that arrive while a check runs share it. The real services and chat controller run here
 * with `vscode` faked and the local backend's start and probe replaced by recorders; the servers
 * they call are loopback ports nothing listens on.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { NetworkError } from '../../../src/api/http/errors';
import { SecretKeys, StateKeys } from '../../../src/common/constants';
import type { Logger } from '../../../src/common/log';
import type * as ChatControllerModule from '../../../src/features/chat/chatController';
import type { SourceOpener } from '../../../src/features/chat/sourceOpener';
import type * as ServicesModule from '../../../src/services';
import { useFakeVscode, type FakeVscodeScope, FakeEventEmitter } from '../../support/fakeVscode';
import { pollUntil } from '../../support/harness/poll';
import { MemoryState } from '../features/chat/fixtures';

const SRC = path.resolve(__dirname, '../../../src');

const disposable = { dispose: () => undefined };

/** What the services and the chat controller use of `vscode` outside a window. */
function fakeVscode(settings: Record<string, unknown>) {
  const EventEmitter = FakeEventEmitter;
  const section = (prefix: string) => ({
    get: (key: string, fallback?: unknown) => settings[prefix + key] ?? fallback,
    inspect: (key: string) => ({ globalValue: settings[prefix + key] }),
    update: async () => undefined,
  });
  const shown = async () => undefined;
  return {
    version: '1.139.1',
    EventEmitter,
    Disposable: class Disposable {
      constructor(private readonly onDispose: () => void) {}
      dispose() {
        this.onDispose();
      }
    },
    CancellationError: class CancellationError extends Error {},
    ThemeColor: class ThemeColor {},
    StatusBarAlignment: { Left: 1, Right: 2 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    l10n: { t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)])) },
    env: { language: 'en' },
    workspace: {
      getConfiguration: (name?: string) => section(name ? `${name}.` : ''),
      onDidChangeConfiguration: () => disposable,
    },
    window: {
      createStatusBarItem: () => ({ show: () => undefined, hide: () => undefined, dispose: () => undefined }),
      showErrorMessage: shown,
      showWarningMessage: shown,
      showInformationMessage: shown,
      onDidChangeWindowState: () => disposable,
    },
    commands: { executeCommand: async () => undefined, registerCommand: () => disposable },
  };
}

const silentLog: Logger = (() => {
  const note = () => undefined;
  const logger = { trace: note, debug: note, info: note, warn: note, error: note, child: () => logger, sink: () => note };
  return logger as unknown as Logger;
})();

/** A loopback URL that refuses connections (the port was free a moment ago). */
async function refusingUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('backend unreachable: one route to the local backend check', () => {
  let scope: FakeVscodeScope;
  let storage: string;
  let services: ServicesModule.ExtensionServices;
  /** Calls of `ConnectionService.unreachable` and of `LocalBackend.probe`. */
  let routed: number;
  let probes: number;
  /** Calls of `LocalBackend.start` (the connection's first one included). */
  let starts: number;
  /** While set, checks wait for it to end them; otherwise they answer at once. */
  let held: Promise<void> | undefined;

  beforeEach(async () => {
    // Local mode for documents; the chat's gateway is a configured one (no transport hook of its
    // own), so an answer's failure reaches the backend check only through the chat's route.
    const settings = { 'docchat.gateway.url': await refusingUrl() };
    scope = useFakeVscode(fakeVscode(settings));
    storage = mkdtempSync(path.join(os.tmpdir(), 'docchat-unreachable-'));
    const secrets = new Map<string, string>([[SecretKeys.gatewayApiKey, 'key']]);
    const workspaceState = new MemoryState();
    await workspaceState.update(StateKeys.groundingChoice, { kind: 'none' });
    const context = {
      secrets: {
        get: async (key: string) => secrets.get(key),
        store: async () => undefined,
        delete: async () => undefined,
        onDidChange: () => disposable,
      },
      workspaceState,
      globalState: new MemoryState(),
      extension: { packageJSON: { version: '0.0.0-test' } },
      extensionPath: path.resolve(SRC, '..'),
      globalStorageUri: { fsPath: storage },
      subscriptions: [],
    };
    const { ExtensionServices } = scope.load<typeof ServicesModule>(path.join(SRC, 'services'));
    services = new ExtensionServices(context as never, silentLog);
    const localUrl = await refusingUrl();
    routed = 0;
    probes = 0;
    starts = 0;
    held = undefined;
    // The backend stays away: each check answers false.
    Object.assign(services.localBackend, {
      start: async () => {
        starts++;
        return { url: localUrl, token: 'local-token' };
      },
      stop: async () => undefined,
      probe: async () => {
        probes++;
        await held;
        return false;
      },
    });
    const unreachable = services.connection.unreachable.bind(services.connection);
    services.connection.unreachable = () => {
      routed++;
      return unreachable();
    };
    await services.connection.use('test');
    assert.equal(services.connection.state.kind, 'local');
  });

  afterEach(() => {
    services?.dispose();
    scope.dispose();
    rmSync(storage, { recursive: true, force: true });
  });

  it('a request of a client that could not connect: its transport takes the route, one check', async () => {
    await assert.rejects(services.connection.documents!.listVectorStores(), (error: Error & { kind?: string }) => error.kind === 'network');
    assert.deepEqual({ routed, probes }, { routed: 1, probes: 1 });
  });

  it('a network error shown by the error reporter: one check', async () => {
    services.errors.report(
      new NetworkError('The documents host 127.0.0.1 is unreachable.'),
      'DocChat: could not refresh the vector stores.',
    );
    assert.deepEqual({ routed, probes }, { routed: 1, probes: 1 });
    // Any other error is not the backend's absence.
    services.errors.report(new Error('no'), 'DocChat: could not refresh the vector stores.');
    assert.deepEqual({ routed, probes }, { routed: 1, probes: 1 });
  });

  it("a chat answer that failed on the network: the chat controller's session takes the route, one check", async () => {
    const { ChatController } = scope.load<typeof ChatControllerModule>(path.join(SRC, 'features/chat/chatController'));
    const context = { globalState: new MemoryState(), workspaceState: new MemoryState() };
    const controller = new ChatController(context as never, services, {} as SourceOpener, silentLog);
    try {
      // A model of the configured gateway (the local extractive one would answer without asking it).
      controller.session.setModel('gpt-test');
      const answer = await controller.session.ask('Hi?');
      await controller.session.whenIdle();
      assert.equal(answer?.error?.kind, 'network', JSON.stringify(answer?.error));
      assert.deepEqual({ routed, probes }, { routed: 1, probes: 1 });
    } finally {
      controller.dispose();
    }
  });

  it('a grounded answer whose local backend is gone says the backend stopped; Restart Backend and Retry starts it anew and asks again', async () => {
    const { ChatController } = scope.load<typeof ChatControllerModule>(path.join(SRC, 'features/chat/chatController'));
    const context = { globalState: new MemoryState(), workspaceState: new MemoryState() };
    const controller = new ChatController(context as never, services, {} as SourceOpener, silentLog);
    try {
      controller.session.setModel('gpt-test');
      controller.session.setGrounding([{ id: 'vs_1', name: 'handbook' }]);
      const answer = (await controller.session.ask('Hi?'))!;
      await controller.session.whenIdle();
      assert.match(answer.error?.message ?? '', /DocChat's local backend stopped/, JSON.stringify(answer.error));
      assert.deepEqual(answer.error?.actions, ['restartLocalBackend', 'showOutput']);
      assert.equal(starts, 1);
      // The check finds no backend (this fake's never comes back): it is started anew, then asked again.
      controller.handle({ type: 'restartBackend', messageId: answer.id });
      await pollUntil(
        () => controller.session.current.messages.at(-1),
        (last) => last?.id !== answer.id && last?.role === 'assistant' && last.status === 'error',
        { what: 'the answer asked again', intervalMs: 10, timeoutMs: 10_000 },
      );
      assert.equal(starts, 2, 'the backend was started again');
      assert.equal(controller.session.current.messages.length, 2, 'the failed answer was replaced');
    } finally {
      controller.dispose();
    }
  });

  it('after the backend was given up on (it kept crashing), the chat offers Restart Backend and Retry, which starts it anew', async () => {
    const { ChatController } = scope.load<typeof ChatControllerModule>(path.join(SRC, 'features/chat/chatController'));
    const context = { globalState: new MemoryState(), workspaceState: new MemoryState() };
    const controller = new ChatController(context as never, services, {} as SourceOpener, silentLog);
    try {
      // What the local backend reports when its crash policy ends the restarts.
      (services.localBackend as unknown as { fire(change: Error): void }).fire(
        new Error('The local DocChat backend stopped 5 times within 3 minutes, so it is not restarted again.'),
      );
      assert.equal(services.connection.state.kind, 'error');
      controller.session.setModel('gpt-test');
      const answer = (await controller.session.ask('Hi?'))!;
      await controller.session.whenIdle();
      assert.equal(answer.error?.kind, 'not_connected', JSON.stringify(answer.error));
      assert.match(answer.error!.message, /stopped 5 times/);
      assert.deepEqual(answer.error!.actions, ['restartLocalBackend', 'showOutput']);
      controller.handle({ type: 'restartBackend', messageId: answer.id });
      await pollUntil(
        () => controller.session.current.messages.at(-1),
        (last) => last?.id !== answer.id && last?.role === 'assistant' && last.status === 'error',
        { what: 'the answer asked again', intervalMs: 10, timeoutMs: 10_000 },
      );
      assert.equal(starts, 2, 'the backend was started anew');
      assert.equal(services.connection.state.kind, 'local');
    } finally {
      controller.dispose();
    }
  });

  it('reports that arrive while a check runs share it', async () => {
    let endCheck!: () => void;
    held = new Promise((resolve) => (endCheck = resolve));
    const network = new NetworkError('The documents host 127.0.0.1 is unreachable.');
    services.errors.report(network, 'DocChat: could not refresh the vector stores.');
    const request = assert.rejects(services.connection.documents!.listVectorStores());
    services.errors.report(network, 'DocChat: could not search.');
    await pollUntil(
      () => routed,
      (n) => n === 3,
      { what: "the request's report", intervalMs: 10, timeoutMs: 10_000 },
    );
    assert.equal(probes, 1, 'three reports, one check');
    endCheck();
    await request;
    // Once it ended, the next report checks again.
    held = undefined;
    services.errors.report(network, 'DocChat: could not search.');
    assert.deepEqual({ routed, probes }, { routed: 4, probes: 2 });
  });
});
