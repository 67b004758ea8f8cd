import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { GatewayClient } from '../../../../src/api/gateway/client';
import type { ConnectionService } from '../../../../src/services/connection';
import { chatApiSupport, ChosenStore, PARTICIPANT_ID, SEARCH_TOOL_NAME, SearchStoreTool } from '../../../../src/features/nativeChat';
import { DocChatParticipant } from '../../../../src/features/nativeChat/participant';
import { PassageDocuments } from '../../../../src/features/search/passages';
import { PassageLinks } from '../../../../src/features/nativeChat/passageLinks';
import type { Services } from '../../../../src/services';
import { backendLibrary, EXTENSION_ID, servicesFor, type TestServices } from '../documents/fixtures';

// VS Code without Copilot: the chat participant and language model tool APIs exist (they
// are stable), the Chat view needs a chat provider to be usable, and `vscode.lm.invokeTool`
// without a chat session asks for confirmation in a modal dialog (covered by the e2e test).
// Here: the API surface DocChat relies on, its contributions, and the participant and the tool
// run against the real embedded backend.

const KEY = 'nativechat-key-61b0';
const GUIDE = 'Deploy guide. To roll back a release, run the rollback pipeline with the previous tag and watch the canary dashboards.';
/** One passage that starts in the handbook's introduction and runs on into a short section. */
const HANDBOOK = [
  '# Handbook',
  '',
  'This handbook is for the platform team.',
  '',
  '## Rolling back',
  '',
  'The rollback pipeline takes about ten minutes to finish.',
  '',
].join('\n');

interface Running {
  url: string;
  close(): Promise<void>;
}

class RecordingStream {
  readonly markdown: string[] = [];
  readonly progress: string[] = [];
  readonly references: string[] = [];
  readonly buttons: vscode.Command[] = [];
  asStream(): vscode.ChatResponseStream {
    const text = (value: string | vscode.MarkdownString) => (typeof value === 'string' ? value : value.value);
    return {
      markdown: (value: string | vscode.MarkdownString) => void this.markdown.push(text(value)),
      progress: (value: string) => void this.progress.push(value),
      reference: (value: vscode.Uri | vscode.Location) =>
        void this.references.push(value instanceof vscode.Uri ? value.toString() : value.uri.toString()),
      button: (command: vscode.Command) => void this.buttons.push(command),
      anchor: () => undefined,
      filetree: () => undefined,
      push: () => undefined,
    } as unknown as vscode.ChatResponseStream;
  }
  get text(): string {
    return this.markdown.join('');
  }
}

function request(prompt: string, command?: string): vscode.ChatRequest {
  return {
    prompt,
    command,
    references: [],
    toolReferences: [],
    toolInvocationToken: undefined,
    model: undefined,
  } as unknown as vscode.ChatRequest;
}

const NO_HISTORY = { history: [] } as unknown as vscode.ChatContext;

/** Asks `participant` as VS Code's chat does, with no history; resolves to what it streamed and its result. */
async function ask(participant: DocChatParticipant, chatRequest: vscode.ChatRequest) {
  const stream = new RecordingStream();
  const result = await participant.handler(chatRequest, NO_HISTORY, stream.asStream(), new vscode.CancellationTokenSource().token);
  return { stream, result };
}

describe('Native chat: @docchat participant and search tool', function () {
  let server: Running;
  let dataDir: string;
  let documents: DocumentsClient;
  let gateway: GatewayClient;
  let services: TestServices;
  let channel: vscode.LogOutputChannel;
  let storeId: string;
  let passages: PassageDocuments;
  const links = new PassageLinks();
  const participantFor = (svc: Services, store: ChosenStore) => new DocChatParticipant(svc, store, passages, links);

  before(async function () {
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    await extension.activate();

    const bundle = backendLibrary<Record<string, unknown>>();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-nativechat-'));
    server = await bundle.startBackend({ host: '127.0.0.1', port: 0, dataDir, token: KEY, apiKey: KEY, rateLimits: false });
    documents = new DocumentsClient({ baseUrl: server.url, token: KEY, rateLimits: false });
    gateway = new GatewayClient({ baseUrl: server.url, token: KEY, rateLimits: false });
    channel = vscode.window.createOutputChannel('DocChat native chat tests', { log: true });
    const base = servicesFor(documents, channel);
    services = { ...base, connection: { ...base.connection, documents, gateway } as unknown as ConnectionService };
    passages = new PassageDocuments(services, 'docchat-nativechat-test');
    const store = await documents.createVectorStore({ name: 'Runbooks' });
    storeId = store.id;
    const file = await documents.uploadFile({ filename: 'deploy-guide.md', data: new TextEncoder().encode(GUIDE) });
    await documents.attachFile(store.id, { file_id: file.id });
    await documents.waitUntilProcessed(store.id, file.id, { initialDelayMs: 20, maxDelayMs: 100 });
  });

  after(async () => {
    passages?.dispose();
    services?.dispose();
    channel?.dispose();
    await documents?.close();
    await gateway?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('VS Code offers the chat participant and language model tool APIs', () => {
    assert.deepEqual(chatApiSupport(), { participants: true, tools: true });
    assert.equal(typeof vscode.lm.invokeTool, 'function');
    // A host without them (or with a partial API) is detected instead of crashing.
    assert.deepEqual(chatApiSupport({ chat: {}, lm: undefined }), { participants: false, tools: false });
  });

  it('contributes @docchat with /search and /store, and the search tool with its schema', () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    const participant = manifest.contributes.chatParticipants.find((p: { id: string }) => p.id === PARTICIPANT_ID);
    assert.ok(participant, `no chat participant ${PARTICIPANT_ID}`);
    assert.equal(participant.name, 'docchat');
    assert.deepEqual(
      participant.commands.map((c: { name: string }) => c.name),
      ['search', 'store'],
    );
    const contributed = manifest.contributes.languageModelTools.map((t: { name: string }) => t.name);
    assert.deepEqual(contributed, [SEARCH_TOOL_NAME]);
  });

  it('the search tool is known to VS Code after activation, with its input schema', () => {
    const tool = vscode.lm.tools.find((t) => t.name === SEARCH_TOOL_NAME);
    assert.ok(tool, `vscode.lm.tools lacks ${SEARCH_TOOL_NAME}: ${vscode.lm.tools.map((t) => t.name).join(', ')}`);
    const schema = tool.inputSchema as { required?: string[]; properties?: Record<string, unknown> };
    assert.deepEqual(schema.required, ['query']);
    assert.ok(schema.properties?.store, 'the schema offers "store"');
  });

  it("the tool's confirmation names the store, and invoke() returns passages from the backend", async () => {
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set([{ id: storeId, name: 'Runbooks' }]);
    const tool = new SearchStoreTool(services, chosen);
    const token = new vscode.CancellationTokenSource().token;
    const prepared = await tool.prepareInvocation({ input: { query: 'roll back a release' } }, token);
    assert.match(String(prepared.confirmationMessages?.title), new RegExp(`“Runbooks” \\(${storeId}\\)`));
    const message = prepared.confirmationMessages!.message;
    assert.match(typeof message === 'string' ? message : message.value, /Runbooks.*roll back a release/);

    const result = await tool.invoke({ input: { query: 'roll back a release', store: 'runbooks' }, toolInvocationToken: undefined }, token);
    const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
    assert.match(text, /passages? from the vector store "Runbooks" matching "roll back a release"/);
    assert.match(text, /\[1\] deploy-guide\.md \(score \d\.\d\d\)\nDeploy guide\. To roll back a release/);
  });

  it('the tool refuses an unknown store with a message the model can act on', async () => {
    const tool = new SearchStoreTool(services, new ChosenStore(services, services.memento));
    const token = new vscode.CancellationTokenSource().token;
    await assert.rejects(
      Promise.resolve(tool.invoke({ input: { query: 'x', store: 'No Such Store' }, toolInvocationToken: undefined }, token)),
      /No DocChat vector store is named "No Such Store"/,
    );
  });

  it('@docchat /search streams the matching passages with references that open them', async () => {
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set([{ id: storeId, name: 'Runbooks' }]);
    const participant = participantFor(services, chosen);
    const { stream, result } = await ask(participant, request('rollback pipeline', 'search'));
    assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
    assert.deepEqual(stream.progress, ['Searching Runbooks…']);
    assert.match(stream.text, /1 passage in \*\*Runbooks\*\* matches “rollback pipeline”/);
    assert.match(stream.text, /\[1\. deploy-guide\.md\]\(command:docchat\.participant\.openPassage\?/);
    assert.match(stream.text, /> Deploy guide\. To roll back a release/);
    assert.equal(stream.references.length, 1);
    assert.match(stream.references[0]!, /^docchat-nativechat-test:\/Runbooks\/deploy-guide\.md\?store%3D/);
  });

  it('@docchat carries the subject of earlier turns into a follow-up only while the store stays the same', async () => {
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set([{ id: storeId, name: 'Runbooks' }]);
    const participant = participantFor(services, chosen);
    // An earlier exchange as VS Code's chat keeps it; the turn classes' constructors are not in the API's types.
    const Request = vscode.ChatRequestTurn as unknown as new (...args: unknown[]) => vscode.ChatRequestTurn;
    const Response = vscode.ChatResponseTurn as unknown as new (...args: unknown[]) => vscode.ChatResponseTurn;
    const earlier = (storeIds: string[]) =>
      ({
        history: [
          new Request('How do I roll back a release?', undefined, [], PARTICIPANT_ID, []),
          new Response(
            [new vscode.ChatResponseMarkdownPart('Run the rollback pipeline with the previous tag [1].')],
            { metadata: { storeIds, searchQuery: 'How do I roll back a release?', files: [] } },
            PARTICIPANT_ID,
            undefined,
          ),
        ],
      }) as unknown as vscode.ChatContext;
    const searchedFor = async (context: vscode.ChatContext) => {
      const stream = new RecordingStream();
      const result = await participant.handler(
        request('Which tag does it use?', 'search'),
        context,
        stream.asStream(),
        new vscode.CancellationTokenSource().token,
      );
      return (result?.metadata as { searchQuery?: string } | undefined)?.searchQuery;
    };
    assert.match((await searchedFor(earlier([storeId]))) ?? '', /roll/, 'the same store: the subject is carried');
    assert.equal(await searchedFor(earlier(['vs_another_store'])), 'Which tag does it use?', 'another store: a new subject');
  });

  it('@docchat answers with the gateway model, grounded in the store, and lists its sources', async () => {
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set([{ id: storeId, name: 'Runbooks' }]);
    const participant = participantFor(services, chosen);
    const { stream, result } = await ask(participant, request('How do I roll back a release?'));
    assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
    assert.deepEqual(stream.progress, ['Searching Runbooks…', 'Answering with local-extractive…']);
    // The local model quotes the sources it was given, with [n] citations.
    assert.match(stream.text, /rollback pipeline/);
    assert.match(stream.text, /" \[\\\[1\\\]\]\(command:docchat\.participant\.openPassage\?/, 'the citation [1] is a link to its source');
    assert.match(stream.text, /\*\*Sources\*\*\n\n- \\\[1\\\] \[deploy-guide\.md\]\(command:docchat\.participant\.openPassage/);
    assert.equal(stream.references.length, 1);
    // Whatever model VS Code's picker passed, DocChat answers with its own and says which.
    assert.match(stream.text, /\*Answered by local-extractive through DocChat's (Local mode|language-model gateway)\.\*$/);
  });

  it('@docchat says a reasoning model is thinking, and keeps its reasoning out of the answer', async () => {
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set([{ id: storeId, name: 'Runbooks' }]);
    // The gateway as it is, but its model reasons before it answers (llama.cpp's, vLLM's way).
    const reasoning: GatewayClient = Object.assign(Object.create(gateway) as GatewayClient, {
      async *streamChatCompletion() {
        yield { content: '', role: 'assistant' };
        yield { content: '', reasoning: 'The guide names the rollback pipeline.' };
        yield { content: 'Run the rollback pipeline with the previous tag [1].' };
        yield { content: '', finishReason: 'stop' };
      },
    });
    const thinking = { ...services, connection: { ...services.connection, gateway: reasoning } as unknown as ConnectionService };
    const { stream, result } = await ask(participantFor(thinking, chosen), request('How do I roll back a release?'));
    assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
    assert.deepEqual(stream.progress, ['Searching Runbooks…', 'Answering with local-extractive…', 'local-extractive is thinking…']);
    assert.match(stream.text, /Run the rollback pipeline with the previous tag/);
    assert.doesNotMatch(stream.text, /The guide names/);
  });

  it("@docchat says in the chat panel's words that the documents do not cover a question the store cannot answer", async () => {
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set([{ id: storeId, name: 'Runbooks' }]);
    const { stream, result } = await ask(participantFor(services, chosen), request('Which colour is the sky at noon?'));
    assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
    assert.equal(stream.text, 'The documents in “Runbooks” do not cover this question, so local-extractive has nothing to quote.');
    assert.equal(stream.references.length, 0, 'nothing is cited');
    // The way forward: the search of the same words in that store, then another store.
    assert.deepEqual(
      stream.buttons.map((b) => [b.command, b.arguments]),
      [
        ['docchat.search', [{ query: 'Which colour is the sky at noon?', store: { id: storeId, name: 'Runbooks' } }]],
        ['docchat.participant.chooseStore', undefined],
      ],
    );
    // Passages were found, but not for these words: the answer names them.
    const named = await ask(participantFor(services, chosen), request('Which SAML provider signs the canary dashboards?'));
    assert.equal(
      named.stream.text,
      'The documents in “Runbooks” do not cover this question, so local-extractive has nothing to quote. ' +
        'No passage it found mentions “SAML”, “provider”, or “signs”: the documents may use other words for it.',
    );
  });

  it('@docchat grounds in the only store when none was chosen in this workspace (the default-grounding rule)', async () => {
    const fresh = servicesFor(documents, channel);
    try {
      const participant = participantFor(fresh, new ChosenStore(fresh, fresh.memento));
      const { stream, result } = await ask(participant, request('rollback pipeline', 'search'));
      assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
      assert.deepEqual(stream.progress, ['Searching Runbooks…']);
      assert.equal((result?.metadata as { storeId?: string } | undefined)?.storeId, storeId);
    } finally {
      fresh.dispose();
    }
  });

  it('@docchat with several stores and none chosen offers to choose one instead of failing', async () => {
    await documents.createVectorStore({ name: 'Postmortems' });
    const fresh = servicesFor(documents, channel);
    try {
      const participant = participantFor(fresh, new ChosenStore(fresh, fresh.memento));
      const { stream, result } = await ask(participant, request('anything'));
      assert.equal(result?.errorDetails, undefined);
      assert.match(stream.text, /Choose the vector store @docchat answers from first/);
      assert.deepEqual(
        stream.buttons.map((b) => b.command),
        ['docchat.participant.chooseStore'],
      );
    } finally {
      fresh.dispose();
    }
  });

  it('@docchat answers from the store the DocChat chat has chosen, with several stores and nothing remembered; /store chooses for the chat too', async () => {
    const stores = (await documents.listVectorStores({ limit: 100 })).data;
    assert.ok(stores.length > 1, 'several stores');
    const other = stores.find((s) => s.id !== storeId)!;
    const fresh = servicesFor(documents, channel);
    const chosenForChat: { id: string; name: string }[][] = [];
    let chatStores = [{ id: storeId, name: 'Runbooks' }];
    const chat = {
      current: () => chatStores,
      choose: (chosen: readonly { id: string; name: string }[]) => void chosenForChat.push([...chosen]),
    };
    try {
      const chosen = new ChosenStore(fresh, fresh.memento, chat);
      const participant = participantFor(fresh, chosen);
      const { stream, result } = await ask(participant, request('rollback pipeline', 'search'));
      assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
      assert.doesNotMatch(stream.text, /Choose the vector store/);
      assert.deepEqual(stream.progress, ['Searching Runbooks…']);
      assert.equal((result?.metadata as { storeId?: string } | undefined)?.storeId, storeId);

      // What /store chooses is the chat's choice too, and @docchat then follows the chat.
      await chosen.set([{ id: other.id, name: other.name || other.id }]);
      assert.deepEqual(chosenForChat, [[{ id: other.id, name: other.name || other.id }]]);
      chatStores = [{ id: other.id, name: other.name || other.id }];
      assert.deepEqual(
        (await chosen.resolveAll()).map((s) => s.id),
        [other.id],
      );
    } finally {
      fresh.dispose();
    }
  });

  it('@docchat /search links each result with a small, fully escaped reference that opens the passage at its match, and shows plain excerpts', async () => {
    // Text with what ends a markdown link early when left unescaped in its address: ( ) ' ! *
    const text = [
      '# Release checklist',
      '',
      "**Plan, the freeze** (two days) isn't optional! Check *every* service's canary (see [the dashboards](https://example.com/dash_(prod))).",
      '',
      '![The canary dashboard](canary.png)',
      '',
      '| Step | Owner |',
      '| --- | --- |',
      "| Freeze the release branch (no merges!) | release captain's team |",
    ].join('\n');
    const store = await documents.createVectorStore({ name: 'Ops_notes' });
    for (const [i, name] of ['checklist-v2.md', 'freeze.md'].entries()) {
      const file = await documents.uploadFile({ filename: name, data: new TextEncoder().encode(`${text}\n\nCopy ${i}.`) });
      await documents.attachFile(store.id, { file_id: file.id });
      await documents.waitUntilProcessed(store.id, file.id, { initialDelayMs: 20, maxDelayMs: 100 });
    }
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set([{ id: store.id, name: 'Ops_notes' }]);
    const { stream, result } = await ask(participantFor(services, chosen), request('freeze canary', 'search'));
    assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
    const headings = stream.markdown.filter((m) => m.startsWith('**['));
    assert.equal(headings.length, 2, stream.text);
    for (const heading of headings) {
      const link = /^\*\*\[(\d+\. [^\]]+)\]\(command:docchat\.participant\.openPassage\?([^ )]*) "[^"]*"\)\*\* · /.exec(heading);
      assert.ok(link, `a heading that is one whole link: ${heading}`);
      const args = link[2]!;
      // Only unreserved characters and escapes: nothing in the address ends the link early.
      assert.match(args, /^(?:[A-Za-z0-9_.~-]|%[0-9A-F]{2})+$/, args);
      assert.ok(args.length < 400, `a small reference, not the passage (${args.length} characters)`);
      const [ref] = JSON.parse(decodeURIComponent(args)) as unknown[];
      assert.doesNotMatch(JSON.stringify(ref), /freeze the release branch/i, 'the link carries no passage text');
      const opened = links.resolve(ref);
      assert.ok(opened && opened.passage.content.includes('Freeze the release branch'), 'the link opens the passage it names');
      assert.deepEqual(opened.focus, { quotes: [], query: 'freeze canary' }, 'at what the search was for');
      const editor = await passages.open(opened.passage, opened.focus);
      const selected = editor.document.offsetAt(editor.selection.start);
      // The passage's first sentence holding the query's words, not its heading.
      assert.equal(selected, editor.document.getText().indexOf('**Plan, the freeze**'), 'the editor shows the passage at its match');
    }
    // The excerpts are plain text, cut at words: no markdown mark left open.
    const excerpts = stream.markdown.flatMap((m) => [...m.matchAll(/^> (.*)$/gm)].map((x) => x[1]!));
    assert.equal(excerpts.length, 2);
    for (const excerpt of excerpts) {
      assert.doesNotMatch(excerpt.replace(/\\./g, ''), /\*\*|!\[|\]\(|\|/, excerpt);
      assert.match(excerpt, /Plan, the freeze \\\(two days\\\) isn't optional/, excerpt);
    }
  });

  it('@docchat /search over several stores lists its results in the order of the score each one shows', async () => {
    // Two stores: the grounding interleaves them by rank (each store's best first), so the second
    // store's best would come before the first store's second, however much lower it scores.
    const texts: Record<string, string[]> = {
      Sirius: [
        'Sirius beacon calibration: calibrate the sirius beacon before each launch window.',
        'Sirius beacon calibration log. The sirius beacon calibration drifted; calibration redone.',
      ],
      Vega: [
        [
          'Vega station weekly notes. The cafeteria menu changes on Mondays and the parking lot is repainted in spring.',
          'Visitors sign in at the front desk. The library closes at six. Badges are renewed every year.',
          'Somewhere in the archive a sirius beacon calibration is mentioned once, among many unrelated topics.',
          'The gardening club meets on Thursdays; the choir rehearses on Fridays after the shift change.',
        ].join(' '),
      ],
    };
    const stores: { id: string; name: string }[] = [];
    for (const [name, files] of Object.entries(texts)) {
      const store = await documents.createVectorStore({ name });
      for (const [i, text] of files.entries()) {
        const file = await documents.uploadFile({ filename: `${name.toLowerCase()}-${i}.md`, data: new TextEncoder().encode(text) });
        await documents.attachFile(store.id, { file_id: file.id });
        await documents.waitUntilProcessed(store.id, file.id, { initialDelayMs: 20, maxDelayMs: 100 });
      }
      stores.push({ id: store.id, name });
    }
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set(stores);
    const { stream, result } = await ask(participantFor(services, chosen), request('sirius beacon calibration', 'search'));
    assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
    const rows = stream.markdown
      .map((m) => /^\*\*\[\d+\. ([^\]]+)\].*\*\* · (\S+) · score (\d\.\d\d)/.exec(m))
      .filter((m) => m !== null)
      .map((m) => ({ file: m[1]!, store: m[2]!, score: Number(m[3]) }));
    assert.deepEqual(new Set(rows.map((r) => r.store)), new Set(['Sirius', 'Vega']), stream.text);
    assert.ok(rows.length >= 3, stream.text);
    const scores = rows.map((r) => r.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
      `rows in the order of their scores: ${JSON.stringify(rows)}`,
    );
  });

  /** A new store holding one markdown file, chosen for @docchat. */
  async function chosenStoreHolding(name: string, filename: string, text: string): Promise<ChosenStore> {
    const store = await documents.createVectorStore({ name });
    const file = await documents.uploadFile({ filename, data: new TextEncoder().encode(text) });
    await documents.attachFile(store.id, { file_id: file.id });
    await documents.waitUntilProcessed(store.id, file.id, { initialDelayMs: 20, maxDelayMs: 100 });
    const chosen = new ChosenStore(services, services.memento);
    await chosen.set([{ id: store.id, name }]);
    return chosen;
  }

  it('@docchat names in its Sources list the section of the sentence it quotes, not the one its passage starts in', async () => {
    const chosen = await chosenStoreHolding('Handbook', 'handbook.md', HANDBOOK);
    const { stream, result } = await ask(participantFor(services, chosen), request('How long does the rollback pipeline take?'));
    assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
    // The citation is a link that opens the source at the sentence it stands behind.
    const inline =
      /The rollback pipeline takes about ten minutes to finish\.?["”]? \[\\\[1\\\]\]\(command:docchat\.participant\.openPassage\?([^ )]*)/.exec(
        stream.text,
      )?.[1];
    assert.ok(inline, stream.text);
    const cited = links.resolve((JSON.parse(decodeURIComponent(inline)) as unknown[])[0]);
    assert.ok(cited?.focus, 'the citation names a passage and a sentence of it');
    assert.equal(cited.focus.quotes.length, 1, JSON.stringify(cited.focus));
    assert.match(cited.focus.quotes[0]!, /^The rollback pipeline takes about ten minutes to finish\.?$/);
    assert.match(stream.text, /- \\\[1\\\] \[handbook\.md\]\(command:[^\n]* › Rolling back · Handbook\n/);
    // The source's link opens the passage at the sentence the answer quotes of it.
    const args = /\[handbook\.md\]\(command:docchat\.participant\.openPassage\?([^ )]*)/.exec(stream.text)?.[1];
    assert.ok(args, stream.text);
    const opened = links.resolve((JSON.parse(decodeURIComponent(args)) as unknown[])[0]);
    assert.ok(opened, 'the link names a passage');
    assert.ok(
      opened.focus?.quotes.some((quote) => quote.includes('The rollback pipeline takes about ten minutes')),
      JSON.stringify(opened.focus),
    );
    const editor = await passages.open(opened.passage, opened.focus);
    assert.equal(editor.document.offsetAt(editor.selection.start), editor.document.getText().indexOf('The rollback pipeline takes'));
  });

  it("@docchat's answer carries no command link but its own, even when it quotes one from a document", async () => {
    const text =
      '# Releases\n\nTo roll back a release, [click here](command:workbench.action.closeWindow) or <command:workbench.action.quit>.\n';
    const chosen = await chosenStoreHolding('Injected', 'releases.md', text);
    const { stream, result } = await ask(participantFor(services, chosen), request('How do I roll back a release?'));
    assert.equal(result?.errorDetails, undefined, result?.errorDetails?.message);
    assert.match(stream.text, /To roll back a release, \[click here\]/, 'the sentence is quoted');
    const commands = [...stream.text.matchAll(/(?:\]\(\s*<?|<)\s*command:([\w.]+)/gi)].map((m) => m[1]);
    assert.ok(commands.length > 0, stream.text);
    assert.deepEqual([...new Set(commands)], ['docchat.participant.openPassage'], stream.text);
  });
});
