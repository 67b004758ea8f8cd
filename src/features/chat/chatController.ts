import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { Commands, ContextKeys } from '../../common/constants';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import type { Services } from '../../services';
import { accessibleAnswerText } from './accessibleView';
import { completeWalkthroughStep } from '../walkthrough';
import { AnswerQueue } from './answerQueue';
import { ChatPanel, type ChatPanelHandler } from './chatPanel';
import { ConversationStore } from './conversationStore';
import { groundingStores, setGroundingStores } from '../../chatCore/conversationStores';
import { FileNameCache } from '../../chatCore/grounding';
import { QueryRewriter } from '../../chatCore/searchQuery';
import { LOCAL_MODEL, ModelCatalog } from '../../chatCore/modelCatalog';
import { titleFor } from '../../chatCore/promptBuilder';
import {
  type ChatErrorInfo,
  type ContextItem,
  type Conversation,
  type HostMessage,
  isOpenableLink,
  type UserMessage,
  type WebviewMessage,
} from '../../chatCore/protocol';
import type { SourceOpener } from './sourceOpener';
import { StoreCatalog } from './storeCatalog';

const ACTION_COMMANDS = {
  setGatewayApiKey: Commands.setGatewayApiKey,
  setDocumentsToken: Commands.setDocumentsToken,
  showOutput: Commands.showOutput,
  chooseStore: Commands.chooseStoreForChat,
  attachFiles: Commands.attachFiles,
  useLanguageModel: Commands.useLanguageModel,
} as const;

/**
 * The chat's state and behaviour behind the panel: conversations, model and store lists, the one
 * running answer. Lives as long as the extension; the panel comes and goes.
 */
export class ChatController extends Disposable implements ChatPanelHandler {
  private panel: ChatPanel | undefined;
  private readonly conversations: ConversationStore;
  private readonly models: ModelCatalog;
  private readonly stores = new StoreCatalog();
  private readonly fileNames = new FileNameCache();
  private readonly rewriter: QueryRewriter;
  private readonly answers: AnswerQueue;
  /** Set while a first question waits for the store list. */
  private sending = false;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly services: Services,
    private readonly sources: SourceOpener,
    private readonly log: Logger,
  ) {
    super();
    this.conversations = new ConversationStore(context.workspaceState);
    this.models = new ModelCatalog(context.globalState);
    this.rewriter = new QueryRewriter({ log: (message) => log.warn(message) });
    this._register(
      services.connection.onDidChange(() => {
        void this.loadModels(false);
        void this.loadStores();
      }),
    );
    this._register(
      services.config.onDidChange(() => {
        if (this.panel) {
          this.postState();
        }
      }),
    );
    this.answers = new AnswerQueue({
      post: (message) => this.post(message),
      save: (conversation) => {
        this.conversations.touch(conversation);
        void this.conversations.save();
      },
      dependencies: () => ({
        gateway: services.connection.gateway,
        notConnected: this.notConnectedError(),
        documents: services.connection.documents,
        fileNames: this.fileNames,
        rewriter: this.rewriter,
      }),
      toolDependencies: () => ({ gateway: services.connection.gateway, notConnected: this.notConnectedError() }),
      addContext: (conversation, pages) => {
        conversation.pendingContext.push(
          ...pages.filter((page) => !conversation.pendingContext.some((c) => c.kind === 'web' && c.url === page.url)),
        );
        // The webview shows the new context chips with the state that follows the answer.
        if (conversation.id === this.current().id) this.postState();
      },
      projectCode: () => services.config.current.projectCode,
      maxSearchResults: () => services.config.current.searchMaxResults,
      warn: (message) => log.warn(message),
      unreachable: () => services.errors.onUnreachable?.(),
    });
    this._register({ dispose: () => this.answers.stop() });
    this._register({ dispose: () => void this.conversations.flush() });
  }

  // ------------------------------------------------------------ panel

  show(preserveFocus = false): ChatPanel {
    if (this.panel) {
      this.panel.reveal(preserveFocus);
      return this.panel;
    }
    return this.adopt(ChatPanel.create(this.context.extensionUri, this, this.log, preserveFocus));
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
        this.stop();
      }
    });
    void this.loadModels(false);
    void this.loadStores();
    return panel;
  }

  private post(message: HostMessage): void {
    if (message.type === 'streamDone' && !message.stopped && !message.nextSteps) {
      completeWalkthroughStep(ContextKeys.answered);
    }
    this.panel?.post(message);
  }

  snapshot(): HostMessage[] {
    return [this.stateMessage(), { type: 'models', catalog: this.models.state }, { type: 'stores', catalog: this.stores.state }];
  }

  private stateMessage(): HostMessage {
    return {
      type: 'state',
      conversation: this.current(),
      conversations: this.conversations.summaries(),
      projectCode: this.services.config.current.projectCode,
      announce: this.services.config.current.announceAnswers,
    };
  }

  /** The last answer as plain text (the chat's Accessible View), or undefined when there is none. */
  accessibleText(): string | undefined {
    return accessibleAnswerText(this.current());
  }

  private postState(): void {
    this.post(this.stateMessage());
  }

  private current(): Conversation {
    return this.conversations.active({});
  }

  // ------------------------------------------------------------ lists

  private gatewayOrigin(): string {
    const state = this.services.connection.state;
    const gatewayUrl = this.services.config.current.gatewayUrl;
    const modelServer = this.services.modelServer.choice;
    return (
      gatewayUrl ||
      (state.kind === 'local' ? `local${modelServer ? `+${modelServer.url}` : ''}` : state.kind === 'remote' ? state.url : state.kind)
    );
  }

  /** The setting, else in Local mode the model picked with "Use a Language Model…". */
  private configuredModel(): string {
    const settings = this.services.config.current;
    const local = !settings.documentsUrl && !settings.gatewayUrl;
    return settings.defaultModel || (local ? (this.services.modelServer.choice?.model ?? '') : '');
  }

  async loadModels(force: boolean): Promise<void> {
    const loading = this.models.load(this.services.connection.gateway, this.gatewayOrigin(), this.configuredModel(), force);
    this.post({ type: 'models', catalog: this.models.state });
    await loading;
    this.post({ type: 'models', catalog: this.models.state });
  }

  async loadStores(): Promise<void> {
    const loading = this.stores.load(this.services.connection.documents, (ids) => this.services.recentStores.sort(ids, (id) => id));
    this.post({ type: 'stores', catalog: this.stores.state });
    await loading;
    this.post({ type: 'stores', catalog: this.stores.state });
    if (this.applyDefaultGrounding(this.current())) {
      this.postState();
    }
  }

  /**
   * A conversation that has not asked anything and has no store yet takes the default grounding
   * (the store chosen last in this workspace, else the only one). True when it changed.
   */
  private applyDefaultGrounding(conversation: Conversation): boolean {
    if (conversation.messages.length > 0 || conversation.options.vectorStoreId) {
      return false;
    }
    const store = this.services.grounding.resolve(this.stores.known);
    if (!store) {
      return false;
    }
    conversation.options.vectorStoreId = store.id;
    conversation.options.vectorStoreName = store.name;
    void this.conversations.save();
    return true;
  }

  /**
   * Grounds the current conversation in `stores` (one store, several, or undefined / none: no
   * grounding) and remembers the first as the default for new chats.
   */
  setGrounding(stores: { id: string; name: string } | readonly { id: string; name: string }[] | undefined): void {
    const list = stores === undefined ? [] : Array.isArray(stores) ? stores : [stores as { id: string; name: string }];
    void this.services.grounding.remember(list[0]);
    for (const store of list) {
      void this.services.recentStores.touch(store.id);
    }
    this.updateOptions((o) => setGroundingStores(o, list));
  }

  /** The stores the current conversation is grounded in. */
  groundingStoreIds(): string[] {
    return groundingStores(this.current().options).map((s) => s.id);
  }

  // ------------------------------------------------------------ commands from outside

  newChat(): void {
    this.stop();
    const { vectorStoreId: _id, vectorStoreName: _name, vectorStores: _stores, ...previous } = this.current().options;
    this.applyDefaultGrounding(this.conversations.create({ ...previous }));
    void this.conversations.save();
    this.postState();
    this.post({ type: 'focusComposer' });
  }

  addContext(items: ContextItem[]): void {
    const conversation = this.current();
    conversation.pendingContext.push(...items);
    this.conversations.touch(conversation);
    void this.conversations.save();
    this.postState();
    this.post({ type: 'focusComposer' });
  }

  // ------------------------------------------------------------ webview messages

  handle(message: WebviewMessage): void {
    switch (message.type) {
      case 'ready':
        return;
      case 'send':
        void this.send(message.text);
        return;
      case 'stop':
        return this.stop(message.requestId);
      case 'regenerate':
        return this.regenerate(message.messageId);
      case 'newChat':
        return this.newChat();
      case 'openConversation':
        this.stop();
        if (this.conversations.activate(message.conversationId)) {
          void this.conversations.save();
        }
        return this.postState();
      case 'deleteConversation':
        if (this.answers.conversationId === message.conversationId) {
          this.stop();
        }
        this.conversations.delete(message.conversationId);
        void this.conversations.save();
        return this.postState();
      case 'setModel':
        return this.updateOptions((o) => (o.model = message.model));
      case 'setOptions':
        return this.updateOptions((o) => {
          if (message.temperature === null) delete o.temperature;
          else o.temperature = message.temperature;
          if (message.maxCompletionTokens === null) delete o.maxCompletionTokens;
          else o.maxCompletionTokens = message.maxCompletionTokens;
        });
      case 'setVectorStore':
        return this.setGrounding(
          message.storeId === null ? undefined : { id: message.storeId, name: this.stores.nameOf(message.storeId) ?? message.storeId },
        );
      case 'searchAgain':
        return this.regenerate(message.messageId, message.query);
      case 'refreshModels':
        void this.loadModels(true);
        return;
      case 'refreshStores':
        void this.loadStores();
        return;
      case 'removeContext': {
        const conversation = this.current();
        conversation.pendingContext.splice(message.index, 1);
        void this.conversations.save();
        return this.postState();
      }
      case 'openLink':
        return this.openLink(message.href);
      case 'openSource':
        return this.openSource(message.messageId, message.number);
      case 'copyCode':
        void vscode.env.clipboard
          .writeText(message.code)
          .then(() => vscode.window.setStatusBarMessage(vscode.l10n.t('DocChat: code copied'), 2000));
        return;
      case 'insertCode':
        void this.sources.insertAtCursor(message.code);
        return;
      case 'runAction':
        void vscode.commands.executeCommand(ACTION_COMMANDS[message.action]);
        return;
    }
  }

  private updateOptions(change: (options: Conversation['options']) => void): void {
    const conversation = this.current();
    change(conversation.options);
    void this.conversations.save();
    this.post({ type: 'options', conversationId: conversation.id, options: conversation.options });
  }

  private openLink(href: string): void {
    if (!isOpenableLink(href)) {
      this.log.warn(`Did not open a link with a scheme other than http(s): ${href.slice(0, 80)}`);
      return;
    }
    void this.sources.openExternal(vscode.Uri.parse(href, true));
  }

  private openSource(messageId: string, number: number): void {
    const message = this.current().messages.find((m) => m.id === messageId);
    const source = message?.role === 'assistant' ? message.sources?.find((s) => s.number === number) : undefined;
    if (source) {
      void this.sources
        .open(source, this.panel?.panel.viewColumn)
        .catch((error: unknown) => this.services.errors.report(error, vscode.l10n.t('DocChat: could not open the source.')));
    }
  }

  // ------------------------------------------------------------ answers

  private async send(text: string): Promise<void> {
    if (this.answers.busy || this.sending) {
      return;
    }
    let conversation = this.current();
    if (
      conversation.messages.length === 0 &&
      !conversation.options.vectorStoreId &&
      !this.stores.known &&
      this.services.grounding.choice?.kind !== 'none'
    ) {
      // The first question may come before the store list: ground it by the default rule first.
      this.sending = true;
      try {
        await this.loadStores();
      } finally {
        this.sending = false;
      }
      if (this.answers.busy) {
        return;
      }
      conversation = this.current();
    }
    const question: UserMessage = { id: randomUUID(), role: 'user', content: text, createdAt: Date.now() };
    if (conversation.pendingContext.length > 0) {
      question.context = conversation.pendingContext;
      conversation.pendingContext = [];
    }
    if (!conversation.messages.some((m) => m.role === 'user')) {
      conversation.title = titleFor(text);
    }
    conversation.messages.push(question);
    this.answer(conversation, question, conversation.messages.length - 1);
  }

  /**
   * Regenerate (or Retry), or search again with `searchQuery` (the user's edit of "Searched
   * for"): only the conversation's last answer, replaced by a new one.
   */
  private regenerate(messageId: string, searchQuery?: string): void {
    const conversation = this.current();
    const last = conversation.messages[conversation.messages.length - 1];
    const question = conversation.messages[conversation.messages.length - 2];
    if (this.answers.busy || last?.id !== messageId || last.role !== 'assistant' || question?.role !== 'user') {
      return;
    }
    conversation.messages.pop();
    this.answer(conversation, question, conversation.messages.length, searchQuery);
  }

  stop(requestId?: string): void {
    this.answers.stop(requestId);
  }

  /** `from`: the index of the first message of this turn (the webview gets only those). */
  private answer(conversation: Conversation, question: UserMessage, from: number, searchQuery?: string): void {
    const model = conversation.options.model ?? this.models.state.defaultModel ?? LOCAL_MODEL;
    const announce = () =>
      this.post({
        type: 'turn',
        conversationId: conversation.id,
        title: conversation.title,
        from,
        messages: conversation.messages.slice(from),
        pendingContext: conversation.pendingContext,
      });
    if (searchQuery) this.answers.start(conversation, question, model, announce, searchQuery);
    else this.answers.respond(conversation, question, model, announce);
  }

  private notConnectedError(): ChatErrorInfo | undefined {
    switch (this.services.connection.gatewayUnavailable) {
      case 'noApiKey':
        return {
          kind: 'not_connected',
          message: vscode.l10n.t('A gateway URL is set but no API key: set the gateway API key to chat.'),
          actions: ['setGatewayApiKey', 'retry'],
        };
      case 'noUrl':
        return {
          kind: 'not_connected',
          message: vscode.l10n.t('No language-model gateway is configured: set "docchat.gateway.url" in the settings to chat.'),
          actions: ['retry', 'showOutput'],
        };
      case 'notReady':
        return {
          kind: 'not_connected',
          message: vscode.l10n.t('DocChat is still connecting. Try again in a moment.'),
          actions: ['retry', 'showOutput'],
        };
      default:
        return undefined;
    }
  }
}
