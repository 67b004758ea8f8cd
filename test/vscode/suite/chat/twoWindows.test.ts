import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { GatewayClient } from '../../../../src/api/gateway/client';
import type { HostMessage } from '../../../../src/chatCore/protocol';
import { ChatController } from '../../../../src/features/chat/chatController';
import type { SourceOpener } from '../../../../src/features/chat/sourceOpener';
import type { ConnectionService } from '../../../../src/services/connection';
import { chatChunk, listPage, ScriptServer, sendChunked, sendJson, sseBody } from '../../../support/servers/scriptServer';
import { EXTENSION_ID, servicesFor, type TestServices } from '../documents/fixtures';
import { RecordingWebviewPanel as Panel } from './recordingPanel';

// Two windows on one workspace, as two real ChatControllers over the same global storage, each
// with its own workspaceState (as each window's extension host has): a turn asked in one window is
// not lost when the other saves, and a window opened afterwards shows both.

const KEY = 'two-windows-key-7d2a';
const MODEL = 'alpha-5-mini';

type State = Extract<HostMessage, { type: 'state' }>;
const isState = (m: HostMessage): m is State => m.type === 'state';

class WindowState implements vscode.Memento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
  }
}

const opener: SourceOpener = { open: async () => undefined, insertAtCursor: async () => undefined, openExternal: async () => undefined };

const questions = (state: State) => state.conversation.messages.filter((m) => m.role === 'user').map((m) => m.content);

describe('Chat conversations in two windows on one workspace (extension host)', () => {
  let gateway: ScriptServer;
  let documents: DocumentsClient;
  let gatewayClient: GatewayClient;
  let services: TestServices;
  let channel: vscode.LogOutputChannel;
  let folder: string;
  const opened: ChatController[] = [];

  /** A window: a controller over the shared global storage, its panel restored and ready. */
  async function openWindow(): Promise<{ controller: ChatController; panel: Panel; state: State }> {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    // Each window gets a workspace storage folder of its own (VS Code gives a second window on an
    // open workspace `<id>-1`); the profile's global storage is one.
    const context = {
      workspaceState: new WindowState(),
      globalState: services.memento,
      storageUri: vscode.Uri.file(path.join(folder, `workspace-${opened.length}`)),
      globalStorageUri: vscode.Uri.file(path.join(folder, 'global')),
      extensionUri: extension.extensionUri,
    } as unknown as vscode.ExtensionContext;
    const controller = new ChatController(context, services, opener, services.log.child('chat'));
    opened.push(controller);
    const panel = new Panel();
    controller.restore(panel as unknown as vscode.WebviewPanel);
    panel.send({ type: 'ready' });
    await panel.waitFor(isState, 'the state after ready');
    // The stored conversations are read without blocking; once they are, the panel has them.
    await controller.session.whenSaved();
    const state = panel.posted.filter(isState).at(-1)!;
    return { controller, panel, state };
  }

  async function ask(window: { controller: ChatController; panel: Panel }, text: string): Promise<void> {
    window.panel.send({ type: 'setModel', model: MODEL });
    const since = window.panel.posted.length;
    window.panel.send({ type: 'send', text });
    await window.panel.waitFor((m): m is HostMessage => m.type === 'streamDone', `the end of the answer to ${text}`, since);
    await window.controller.session.whenSaved();
  }

  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'docchat-two-windows-'));
    gateway = await ScriptServer.start();
    gateway.on('GET', '/v1/vector_stores', (req, res) => sendJson(res, 200, listPage([], req.query)));
    gateway.on('GET', '/v1/completions/models', (_req, res) =>
      sendJson(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model' }] }),
    );
    gateway.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(res, sseBody([chatChunk('Like this.'), chatChunk(undefined, { finish_reason: 'stop' })])),
    );
    documents = new DocumentsClient({ baseUrl: gateway.url, token: KEY, rateLimits: false });
    gatewayClient = new GatewayClient({ baseUrl: gateway.url, token: KEY, rateLimits: false });
    channel = vscode.window.createOutputChannel('DocChat two windows tests', { log: true });
    const base = servicesFor(documents, channel);
    services = {
      ...base,
      connection: { ...base.connection, documents, gateway: gatewayClient, gatewayUnavailable: undefined } as unknown as ConnectionService,
    };
  });

  after(async () => {
    for (const controller of opened) controller.dispose();
    services?.dispose();
    channel?.dispose();
    await documents?.close();
    await gatewayClient?.close();
    await gateway?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps the turn of a closed window when the other asks next; a window opened afterwards shows both', async () => {
    const window1 = await openWindow();
    await ask(window1, 'How do I create a store?');
    const window2 = await openWindow();
    assert.deepEqual(questions(window2.state), ['How do I create a store?'], 'the second window restores the conversation');
    await ask(window2, 'How do I delete a store?');
    window2.controller.dispose();

    // Coming back to window 1 shows the turn asked in window 2.
    const since = window1.panel.posted.length;
    await window1.controller.session.refresh();
    const refreshed = await window1.panel.waitFor(isState, 'the state with the other window’s turn', since);
    assert.deepEqual(questions(refreshed), ['How do I create a store?', 'How do I delete a store?']);

    await ask(window1, 'How do I rename a store?');
    const reloaded = await openWindow();
    assert.deepEqual(questions(reloaded.state), ['How do I create a store?', 'How do I delete a store?', 'How do I rename a store?']);
    assert.equal(reloaded.state.conversations.length, 1, 'one conversation, not one per window');
    assert.deepEqual(readdirSync(path.join(folder, 'global', 'conversations')).length, 1, "one folder for the workspace's conversations");
    assert.ok(!existsSync(path.join(folder, 'workspace-0', 'conversations.json')), "not in a window's own storage folder");
  });
});
