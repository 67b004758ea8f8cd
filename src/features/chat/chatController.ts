import * as vscode from 'vscode';
import { atFirstUse } from '../../common/atFirstUse';
import { Commands, Settings } from '../../common/constants';
import { Emitter } from '../../common/emitter';
import { shownUrl } from '../../common/shownUrl';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import type { Services } from '../../services';
import { configuredChatModel } from '../../services/settingsModel';
import { accessibleAnswerText } from './accessibleView';
import { ChatPanel, type ChatPanelHandler } from './chatPanel';
import { couldNotConnectError, notConnectedError } from './chatErrors';
import { type AnswerEnded, ChatSession } from './chatSession';
import type { LocalServices } from './answerGenerator';
import type * as ConversationStoreModule from './conversationStore';
import { ConversationFile, conversationFolder } from './conversationFile';
import { LOCAL_CHAT_MODEL } from '../../api/gateway/models';
import { answerSearch, groundingStores } from '../../chatCore/conversationStores';
import { localModelOrigin, ModelCatalog } from '../../chatCore/modelCatalog';
import { QueryRewriter } from '../../chatCore/searchQuery';
import { citedStatements } from '../../chatCore/citations';
import { isOpenableLink } from '../../chatCore/links';
import type { ContextItem, HostMessage, StoreOption, WebviewMessage } from '../../chatCore/protocol';
import type { SourceOpener } from './sourceOpener';
import { StoreCatalog } from './storeCatalog';

// The stored conversations are checked with zod: they are read at the chat's first use, not when
// DocChat activates.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const conversationStore = atFirstUse(() => require('./conversationStore') as typeof ConversationStoreModule);

/** The command (and its arguments) each button of the panel runs: a fixed allow-list. */
const ACTION_COMMANDS = {
  setGatewayApiKey: [Commands.setGatewayApiKey],
  setDocumentsToken: [Commands.setDocumentsToken],
  openGatewaySettings: [Commands.openSettings, Settings.gatewayUrl],
  showOutput: [Commands.showOutput],
  chooseStore: [Commands.chooseStoreForChat],
  attachFiles: [Commands.attachFiles],
  useLanguageModel: [Commands.useLanguageModel],
} as const;

/**
 * The chat panel's lifecycle and its message router: webview messages become intents of the
 * `ChatSession` (which owns the conversations), and the session's messages go to the panel. Also
 * keeps the model and store lists the panel offers. Lives as long as the extension; the panel
 * comes and goes.
 */
export class ChatController extends Disposable implements ChatPanelHandler {
  private panel: ChatPanel | undefined;
  private readonly models: ModelCatalog;
  private readonly stores = new StoreCatalog();
  private created: ChatSession | undefined;
  /** The restart of Local mode's backend the user asked for, while it runs. */
  private restartingBackend: Promise<void> | undefined;
  private readonly answered = this._register(new Emitter<AnswerEnded>());
  /** An answer of the session ended. */
  readonly onDidAnswer = this.answered.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly services: Services,
    private readonly sources: SourceOpener,
    private readonly log: Logger,
  ) {
    super();
    this.models = new ModelCatalog(context.globalState, Date.now, services.modelServer.unavailable, services.modelServer.refusals);
    this._register(
      services.connection.onDidChange(() => {
        void this.loadModels(false);
        void this.loadStores();
      }),
    );
    this._register(services.config.onDidChange(() => this.panel?.post(this.session.state())));
    // The store list follows the stores tree: what is created, renamed or deleted there shows here.
    const events = services.documentsEvents;
    this._register(events.onDidChangeStore((store) => this.storesChanged(this.stores.upsert(store))));
    this._register(events.onDidDeleteStore((id) => this.storesChanged(this.stores.remove(id))));
    this._register(events.onDidListStores((listed) => this.storesChanged(this.stores.follow(listed.stores, listed.complete))));
  }

  private storesChanged(changed: boolean): void {
    if (changed) this.panel?.post({ type: 'stores', catalog: this.stores.state });
  }

  /**
   * The workspace's conversations, read from workspaceState when the chat is first used (the
   * panel, a command that adds to it, DocChat connecting), not when DocChat activates.
   */
  get session(): ChatSession {
    return (this.created ??= this.createSession());
  }

  private createSession(): ChatSession {
    const { services, log } = this;
    // In a file the windows on this workspace share (see conversationFile.ts); a window without a
    // folder (or storage not on disk) keeps them in its workspaceState.
    const { globalStorageUri, workspaceState } = this.context;
    const workspace = vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const storage =
      globalStorageUri?.scheme === 'file' && workspace
        ? new ConversationFile(conversationFolder(globalStorageUri.fsPath, workspace.toString()), workspaceState, (m) => log.warn(m))
        : workspaceState;
    const session = new ChatSession(new (conversationStore().ConversationStore)(storage), {
      clients: () => {
        const { connection } = services;
        const connecting = this.connecting();
        const failed = connection.state.kind === 'error' ? connection.state.message : undefined;
        const notConnected = failed !== undefined ? couldNotConnectError(failed) : notConnectedError(connection.gatewayUnavailable);
        return {
          gateway: connection.gateway,
          documents: connection.documents,
          ...(notConnected ? { notConnected } : {}),
          ...(connecting ? { connecting } : {}),
          ...(connection.state.kind === 'local' ? { local: this.localServices() } : {}),
        };
      },
      settings: () => ({
        projectCode: services.config.current.projectCode,
        maxSearchResults: services.config.current.searchMaxResults,
        announce: services.config.current.announceAnswers,
        webTools: !this.localGateway(),
      }),
      defaultModel: () => this.models.state.defaultModel ?? LOCAL_CHAT_MODEL,
      defaultStore: () => services.grounding.resolve(this.stores.known, services.recentStores.list()),
      storeGone: (id) => this.stores.isGone(id),
      groundingKnown: async () => {
        await this.connecting();
        if (!this.stores.known && services.grounding.choice?.kind !== 'none') await this.loadStores();
      },
      rewriter: new QueryRewriter({ log: (message) => log.warn(message) }),
      warn: (message) => log.warn(message),
      unreachable: () => void services.connection.unreachable(),
      modelUnavailable: (model, unavailable) => {
        this.models.markUnavailable(model, unavailable.reason, unavailable.server);
        this.panel?.post({ type: 'models', catalog: this.models.state });
      },
      refusal: (model) => this.models.refusal(model),
      modelAnswered: (model) => {
        if (this.models.markAnswered(model)) this.panel?.post({ type: 'models', catalog: this.models.state });
      },
    });
    this._register(session);
    this._register(session.onMessage((message) => this.panel?.post(message)));
    this._register(session.onDidAnswer((ended) => this.answered.fire(ended)));
    // Coming back to this window shows what was asked meanwhile in another window on the workspace.
    this._register(
      vscode.window.onDidChangeWindowState((state) => {
        if (state.focused) void session.refresh();
      }),
    );
    return session;
  }

  /**
   * While DocChat makes its connection (not used yet in this window, or starting Local mode's
   * backend): resolves once it is made or failed. Undefined when there is nothing to wait for.
   */
  private connecting(): Promise<void> | undefined {
    const { connection } = this.services;
    if (this.restartingBackend) return this.restartingBackend;
    if (connection.gatewayUnavailable !== 'notReady') return undefined;
    if (connection.state.kind === 'idle') return connection.use('a question in the chat');
    if (connection.state.kind !== 'starting') return undefined;
    return new Promise((resolve) => {
      const listener = connection.onDidChange((state) => {
        if (state.kind === 'starting') return;
        listener.dispose();
        resolve();
      });
    });
  }

  // ------------------------------------------------------------ panel

  /** `column`: where a new chat opens (by default beside what is being read); an open one stays put. */
  show(preserveFocus = false, column?: vscode.ViewColumn): ChatPanel {
    if (this.panel) {
      this.panel.reveal(preserveFocus);
      return this.panel;
    }
    // A chat tab restored after a reload but never shown (it was behind another editor): the chat
    // opens in its place, and that tab closes, instead of a second DocChat tab opening beside it.
    const stale = ChatPanel.unrestoredTabs();
    const panel = this.adopt(
      ChatPanel.create(this.context.extensionUri, this, this.log, preserveFocus, stale[0]?.group.viewColumn ?? column),
    );
    if (stale.length) {
      void vscode.window.tabGroups
        .close(stale, true)
        .then(undefined, (error: unknown) => this.log.warn(`Could not close a restored chat tab: ${String(error)}`));
    }
    return panel;
  }

  /** A panel VS Code restored after a reload. */
  restore(panel: vscode.WebviewPanel): void {
    if (this.panel) {
      // Only one chat panel: a second restored one is closed.
      panel.dispose();
      return;
    }
    this.adopt(new ChatPanel(panel, this.context.extensionUri, this, this.log));
  }

  private adopt(panel: ChatPanel): ChatPanel {
    this.panel = panel;
    // The chat panel (opened, or restored after a reload) is a use of DocChat: connect.
    void this.services.connection.use('the chat panel');
    panel.onDidDispose(() => {
      if (this.panel === panel) {
        this.panel = undefined;
        this.session.stop();
      }
    });
    void this.loadModels(false);
    void this.loadStores();
    return panel;
  }

  snapshot(): HostMessage[] {
    return [this.session.state(), { type: 'models', catalog: this.models.state }, { type: 'stores', catalog: this.stores.state }];
  }

  /** The last answer as plain text (the chat's Accessible View), or undefined when there is none. */
  accessibleText(): string | undefined {
    return accessibleAnswerText(this.session.current);
  }

  // ------------------------------------------------------------ lists

  private gatewayOrigin(): string {
    const state = this.services.connection.state;
    const gatewayUrl = this.services.config.current.gatewayUrl;
    const modelServer = this.services.modelServer.choice;
    return (
      (gatewayUrl && shownUrl(gatewayUrl)) ||
      (state.kind === 'local'
        ? modelServer
          ? localModelOrigin(modelServer.url)
          : 'local'
        : state.kind === 'remote'
          ? state.url
          : state.kind)
    );
  }

  /**
   * True when Local mode's backend answers the chat (no gateway URL, no documents URL: see
   * planConnection): it serves only what it lists, and has no web tools.
   */
  private localGateway(): boolean {
    const { gatewayUrl, documentsUrl } = this.services.config.current;
    return !gatewayUrl && !documentsUrl;
  }

  /** What Local mode's own backend provides, and the model server it forwards chat to. */
  private localServices(): LocalServices {
    const gateway = this.localGateway();
    const server = gateway ? this.services.modelServer.choice : undefined;
    return { documents: true, gateway, ...(server ? { modelServer: { url: server.url, name: server.name } } : {}) };
  }

  async loadModels(force: boolean): Promise<void> {
    const loading = this.models.load(
      this.services.connection.gateway,
      this.gatewayOrigin(),
      configuredChatModel(this.services.config.current, this.services.modelServer.choice?.model),
      force,
      this.localGateway() ? 'local' : 'gateway',
    );
    this.panel?.post({ type: 'models', catalog: this.models.state });
    await loading;
    this.panel?.post({ type: 'models', catalog: this.models.state });
  }

  async loadStores(): Promise<void> {
    const loading = this.stores.load(this.services.connection.documents, (ids) => this.services.recentStores.sort(ids, (id) => id));
    this.panel?.post({ type: 'stores', catalog: this.stores.state });
    await loading;
    this.panel?.post({ type: 'stores', catalog: this.stores.state });
    this.session.applyDefaultGrounding();
  }

  // ------------------------------------------------------------ commands from outside

  /**
   * Grounds the current conversation in `stores` (one store, several, or none: no grounding) and
   * remembers the first as the default for new chats.
   */
  setGrounding(stores: readonly StoreOption[]): void {
    // A store picked from a fresh list (made elsewhere since the chat listed) joins the chat's list.
    for (const store of stores) if (!this.stores.nameOf(store.id)) this.storesChanged(this.stores.upsert(store));
    void this.services.grounding.remember(stores[0]);
    for (const store of stores) {
      void this.services.recentStores.touch(store.id);
    }
    this.session.setGrounding(stores);
  }

  /** The stores the current conversation is grounded in. */
  groundingStores(): StoreOption[] {
    return groundingStores(this.session.current.options);
  }

  /** The ids of the stores the current conversation is grounded in. */
  groundingStoreIds(): string[] {
    return this.groundingStores().map((s) => s.id);
  }

  newChat(): void {
    this.session.newChat();
  }

  /**
   * The user chose `model` with "Use a Language Model…" (or stopped using one: local-extractive):
   * the chat's conversation answers with it from its next question, whichever model was picked
   * in it (the latest choice wins; the chat's model picker switches back), and new chats start
   * from it. Other stored conversations keep the model they have.
   */
  followModelChoice(model: string): Promise<void> {
    return this.session.follow(model);
  }

  addContext(items: ContextItem[]): void {
    this.session.addContext(items);
  }

  // ------------------------------------------------------------ webview messages

  handle(message: Exclude<WebviewMessage, { type: 'ready' }>): void {
    switch (message.type) {
      case 'send':
        void this.session.ask(message.text);
        return;
      case 'stop':
        return this.session.stop(message.requestId);
      case 'regenerate':
        this.session.regenerate(message.messageId);
        return;
      case 'restartBackend':
        return this.restartBackend(message.messageId);
      case 'searchDocuments':
        return this.searchDocuments(message.messageId);
      case 'newChat':
        return this.session.newChat();
      case 'openConversation':
        return this.session.open(message.conversationId);
      case 'deleteConversation':
        return this.session.delete(message.conversationId);
      case 'setModel':
        return this.session.setModel(message.model);
      case 'setOptions':
        return this.session.setSampling(message);
      case 'setVectorStore':
        return this.setGrounding(
          message.storeId === null ? [] : [{ id: message.storeId, name: this.stores.nameOf(message.storeId) ?? message.storeId }],
        );
      case 'searchAgain':
        this.session.regenerate(message.messageId, message.query);
        return;
      case 'refreshModels':
        // A list that comes back the same changes nothing on screen: the status bar says it was read.
        void this.loadModels(true).then(() => {
          const { models, error } = this.models.state;
          if (error) return;
          const listed =
            models.length === 1
              ? vscode.l10n.t('DocChat: model list refreshed (1 model).')
              : vscode.l10n.t('DocChat: model list refreshed ({0} models).', models.length);
          vscode.window.setStatusBarMessage(listed, 3000);
        });
        return;
      case 'refreshStores':
        void this.loadStores();
        return;
      case 'removeContext':
        return this.session.removeContext(message.index);
      case 'openLink':
        return this.openLink(message.href);
      case 'openSource':
        return this.openSource(message.messageId, message.number, message.citation);
      case 'copyCode':
        void vscode.env.clipboard
          .writeText(message.code)
          .then(() => vscode.window.setStatusBarMessage(vscode.l10n.t('DocChat: code copied'), 2000));
        return;
      case 'insertCode':
        void this.sources.insertAtCursor(message.code);
        return;
      case 'runAction': {
        const [command, ...args] = ACTION_COMMANDS[message.action];
        // Attach Files attaches to the chat's store ("holds no files yet: attach some") when it has one that exists.
        const store = message.action === 'attachFiles' ? this.chatStore() : undefined;
        void vscode.commands.executeCommand(command, ...(store ? [{ store }] : args));
        return;
      }
    }
  }

  private openLink(href: string): void {
    if (!isOpenableLink(href)) {
      this.log.warn(`Did not open a link with a scheme other than http(s): ${href.slice(0, 80)}`);
      return;
    }
    void this.sources.openExternal(vscode.Uri.parse(href, true));
  }

  /**
   * "Restart Backend and Retry": Local mode's backend is started again when it stopped (or was
   * given up on after repeated crashes), and the answer is asked again once it answers; meanwhile
   * the answer says "Connecting…".
   */
  private restartBackend(messageId: string): void {
    this.restartingBackend ??= this.services.connection
      .restartLocal()
      .catch((error: unknown) => this.log.warn(`Could not restart the local backend: ${String(error)}`))
      .finally(() => (this.restartingBackend = undefined));
    this.session.regenerate(messageId);
  }

  /**
   * "Search the Documents" of an answer the documents did not cover: the search opens with the
   * words that answer searched for (the question, or the query its grounding made of it), in the
   * store it searched; with several, or when that store is gone, the picker offers the words as a
   * search of each store there is.
   */
  private searchDocuments(messageId: string): void {
    const search = answerSearch(this.session.current, messageId, (id) => this.stores.nameOf(id));
    if (search) void vscode.commands.executeCommand(Commands.search, search);
  }

  /** The one store the shown conversation is grounded in, when the store list has it (not deleted). */
  private chatStore(): StoreOption | undefined {
    const stores = this.groundingStores();
    const name = stores.length === 1 ? this.stores.nameOf(stores[0]!.id) : undefined;
    return name === undefined ? undefined : { id: stores[0]!.id, name };
  }

  /** Opens a cited source at what the answer says of it: the statements (quotes) that cite it. */
  private openSource(messageId: string, number: number, citation?: number): void {
    const message = this.session.current.messages.find((m) => m.id === messageId);
    const source = message?.role === 'assistant' ? message.sources?.find((s) => s.number === number) : undefined;
    if (source && message?.role === 'assistant') {
      const quotes = citedStatements(message.content, number, message.sources?.length ?? 0);
      void this.sources
        .open(source, this.panel?.panel.viewColumn, { quotes, ...(citation !== undefined ? { index: citation } : {}) })
        .catch((error: unknown) => this.services.errors.report(error, vscode.l10n.t('DocChat: could not open the source.')));
    }
  }
}
