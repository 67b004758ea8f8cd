import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { GatewayClient } from '../../../../src/api/gateway/client';
import type { AssistantMessage, HostMessage } from '../../../../src/chatCore/protocol';
import { ChatController } from '../../../../src/features/chat/chatController';
import type { SourceOpener } from '../../../../src/features/chat/sourceOpener';
import type { ConnectionService } from '../../../../src/services/connection';
import { chatChunk, listPage, ScriptServer, sendChunked, sendJson, sseBody } from '../../../support/servers/scriptServer';
import { EXTENSION_ID, servicesFor, type TestServices } from '../documents/fixtures';
import { RecordingWebviewPanel } from './recordingPanel';

// The chat panel's host side through the real ChatController: messages come in as the webview
// sends them (through the real ChatPanel, which validates them and holds posts until `ready`),
// and what the controller posts back is recorded. The gateway is a scripted server that records
// every request.

const KEY = 'chat-controller-key-4c1e';
const MODEL = 'alpha-5-mini';
const QUESTION = 'How long are invoices kept?';
const ANSWERS = ['Invoices are kept for ten years.', 'Ten years after the end of the fiscal year.'];

/** The source opener's seams, recorded: which links were handed to the browser. */
class RecordingOpener implements SourceOpener {
  readonly opened: vscode.Uri[] = [];
  async open(): Promise<void> {}
  async insertAtCursor(): Promise<void> {}
  async openExternal(uri: vscode.Uri): Promise<void> {
    this.opened.push(uri);
  }
}

type Turn = Extract<HostMessage, { type: 'turn' }>;
type StreamDone = Extract<HostMessage, { type: 'streamDone' }>;
const isTurn = (m: HostMessage): m is Turn => m.type === 'turn';
const doneOf =
  (requestId: string) =>
  (m: HostMessage): m is StreamDone =>
    m.type === 'streamDone' && m.requestId === requestId;

function answerOf(turn: Turn): AssistantMessage {
  const answer = turn.messages[turn.messages.length - 1];
  assert.equal(answer?.role, 'assistant', `the turn ends with an answer: ${JSON.stringify(turn.messages)}`);
  return answer as AssistantMessage;
}

describe('Chat panel host (extension host, real ChatController)', () => {
  let gateway: ScriptServer;
  let documents: DocumentsClient;
  let gatewayClient: GatewayClient;
  let services: TestServices;
  let channel: vscode.LogOutputChannel;
  let controller: ChatController;
  let panel: RecordingWebviewPanel;
  let opener: RecordingOpener;

  before(async () => {
    gateway = await ScriptServer.start();
    gateway.on('GET', '/v1/vector_stores', (req, res) => sendJson(res, 200, listPage([], req.query)));
    gateway.on('GET', '/v1/completions/models', (_req, res) =>
      sendJson(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model' }] }),
    );
    let asked = 0;
    gateway.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(res, sseBody([chatChunk(ANSWERS[asked++ % ANSWERS.length]), chatChunk(undefined, { finish_reason: 'stop' })])),
    );
    documents = new DocumentsClient({ baseUrl: gateway.url, token: KEY, rateLimits: false });
    gatewayClient = new GatewayClient({ baseUrl: gateway.url, token: KEY, rateLimits: false });
    channel = vscode.window.createOutputChannel('DocChat chat controller tests', { log: true });
    const base = servicesFor(documents, channel);
    services = {
      ...base,
      connection: { ...base.connection, documents, gateway: gatewayClient, gatewayUnavailable: undefined } as unknown as ConnectionService,
    };
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    const context = {
      workspaceState: services.memento,
      globalState: services.memento,
      extensionUri: extension.extensionUri,
    } as unknown as vscode.ExtensionContext;
    opener = new RecordingOpener();
    controller = new ChatController(context, services, opener, services.log.child('chat'));
    // The way VS Code hands over a restored panel; the webview then says it is ready.
    panel = new RecordingWebviewPanel();
    controller.restore(panel as unknown as vscode.WebviewPanel);
    panel.send({ type: 'ready' });
    await panel.waitFor((m): m is HostMessage => m.type === 'state', 'the state after ready');
  });

  after(async () => {
    controller?.dispose();
    services?.dispose();
    channel?.dispose();
    await documents?.close();
    await gatewayClient?.close();
    await gateway?.close();
  });

  it('opens an https link from the webview, and nothing for command:, file:, javascript:, vscode: and other schemes', () => {
    const refused = [
      'command:workbench.action.terminal.new',
      'command:docchat.signOut?%5B%5D',
      'file:///etc/passwd',
      'javascript:alert(document.cookie)',
      'JavaScript:alert(1)',
      'vscode:extension/evil.publisher',
      'vscode://vscode.git/clone?url=https%3A%2F%2Fexample.com%2Frepo.git',
      'vscode-insiders://settings/docchat.gateway.url',
      'data:text/html,<script>alert(1)</script>',
      'mailto:someone@example.com',
      'ftp://example.com/file.txt',
      'https://',
      '//example.com/protocol-relative',
      'not a link',
    ];
    for (const href of refused) {
      panel.send({ type: 'openLink', href });
    }
    assert.deepEqual(
      opener.opened.map((uri) => uri.toString(true)),
      [],
      'a link with another scheme than http(s) was handed to the browser',
    );
    panel.send({ type: 'openLink', href: 'https://example.com/retention?year=2024#invoices' });
    assert.deepEqual(
      opener.opened.map((uri) => uri.toString(true)),
      ['https://example.com/retention?year=2024#invoices'],
    );
  });

  it('Regenerate asks the gateway again and replaces the answer with the new one', async () => {
    panel.send({ type: 'setModel', model: MODEL });
    const asked = panel.posted.length;
    panel.send({ type: 'send', text: QUESTION });
    const first = answerOf(await panel.waitFor(isTurn, 'the turn of the question', asked));
    const firstDone = await panel.waitFor(doneOf(first.requestId!), 'the end of the first answer', asked);
    assert.equal(firstDone.stopped, false);
    assert.equal(panel.streamedText(first.requestId!), ANSWERS[0]);
    assert.equal(gateway.count('POST', '/v1/chat/completions'), 1);

    const regenerated = panel.posted.length;
    panel.send({ type: 'regenerate', messageId: first.id });
    const turn = await panel.waitFor(isTurn, 'the turn of the regenerated answer', regenerated);
    assert.equal(turn.from, 1, 'the new answer takes the place of the old one, after the question');
    assert.equal(turn.messages.length, 1);
    const second = answerOf(turn);
    assert.notEqual(second.id, first.id);
    const secondDone = await panel.waitFor(doneOf(second.requestId!), 'the end of the regenerated answer', regenerated);
    assert.equal(secondDone.stopped, false);
    assert.equal(panel.streamedText(second.requestId!), ANSWERS[1]);
    // The webview learns of each answer (its turn) before anything of its stream.
    for (const [since, answer] of [
      [asked, first],
      [regenerated, second],
    ] as const) {
      const types = panel.posted
        .slice(since)
        .flatMap((m) =>
          m.type === 'turn' && m.messages.some((x) => x.id === answer.id)
            ? ['turn']
            : 'requestId' in m && m.requestId === answer.requestId
              ? [m.type]
              : [],
        );
      assert.equal(types[0], 'turn', `posted for the answer: ${types.join(', ')}`);
    }

    // The gateway was asked the same question again, without the answer being replaced.
    const requests = gateway.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
    assert.equal(requests.length, 2, 'Regenerate made a new request to the gateway');
    for (const request of requests) {
      assert.equal(request.json.model, MODEL);
      const messages = request.json.messages as Array<{ role: string; content: string }>;
      assert.deepEqual(messages[messages.length - 1], { role: 'user', content: QUESTION });
      assert.ok(!messages.some((m) => m.role === 'assistant'), `no earlier answer in the prompt: ${JSON.stringify(messages)}`);
    }

    // The conversation (what the webview gets when it starts again) holds the question and only the new answer.
    const state = controller.snapshot().find((m): m is Extract<HostMessage, { type: 'state' }> => m.type === 'state');
    assert.deepEqual(
      state?.conversation.messages.map((m) => [m.role, m.content, m.role === 'assistant' ? m.status : 'asked']),
      [
        ['user', QUESTION, 'asked'],
        ['assistant', ANSWERS[1], 'done'],
      ],
    );
    assert.equal(state?.conversation.messages[1]?.id, second.id);
  });
});
