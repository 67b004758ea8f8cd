/** The chat webview: header (conversation, model, store, options), messages, composer. */
import * as l10n from '@vscode/l10n';
import type {
  AnnounceMode,
  Conversation,
  ConversationSummary,
  HostMessage,
  ModelCatalogState,
  StoreCatalogState,
  UserMessage,
  WebviewMessage,
} from '../../src/chatCore/protocol';
import { hasProjectCode, ignoresSampling, LOCAL_CHAT_MODEL } from '../../src/chatCore/modelTraits';
import { groundingStores } from '../../src/chatCore/conversationStores';
import { h, icon, iconButton, textButton } from './dom';
import type { MarkdownPipeline } from './markdown';
import { AnswerView, answerKey, contextChip, moveInSources, userMessageElement, type ViewContext } from './messageView';
import { type FrameScheduler, FrameLoop } from './frameLoop';
import { afterPaint, mark, Marks } from './marks';
import { SlashCommandList } from './slashCommands';
import { conversationLabels } from './conversationList';
import { Announcer } from './announcer';

/** Store select entries that are not stores: the conversation's several stores, and the multi-select picker. */
const CURRENT_STORES = '\u0000current';
const SEVERAL_STORES = '\u0000several';
/** The Model select's last entry in Local mode, as VS Code's model picker ends with Manage Models…: it runs Use a Language Model…. */
const CONNECT_MODEL_SERVER = '\u0000connect';

export interface WebviewHost {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

interface SavedState {
  draft?: string;
}

/**
 * A conversation opened or switched to shows its last messages first: as many as fit this much
 * text (at least two); the earlier ones are built a few per frame after it is painted.
 */
const FIRST_PAINT_TEXT = 20_000;
const FIRST_PAINT_MESSAGES = 20;
const EARLIER_PER_FRAME = 20;

/** Keys that move a closed select's choice without opening its list. */
const STEPPING_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/**
 * An entry of `select` that runs a command instead of choosing ("Use a Language Model…"). Picked
 * from the open list (or with the pointer) it runs at once; reached with the arrow keys on the
 * closed select, as the keyboard passes over every entry, it runs only on Enter. The returned
 * function, called on `change`, runs the entry when it should and says whether the entry is the
 * select's value (so `change` chooses nothing).
 */
function commandEntry(select: HTMLSelectElement, value: string, run: () => void): () => boolean {
  let stepped = false;
  select.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && select.value === value) {
      event.preventDefault();
      run();
      return;
    }
    // Alt+Down opens the list: a choice made there is picked, not passed over.
    stepped = STEPPING_KEYS.has(event.key) && !event.altKey;
  });
  select.addEventListener('pointerdown', () => (stepped = false));
  return () => {
    if (select.value !== value) return false;
    if (!stepped) run();
    return true;
  };
}

export class ChatApp {
  private conversation: Conversation | undefined;
  private models: ModelCatalogState = { models: [], loading: true };
  private stores: StoreCatalogState = { stores: [], loading: true };
  private readonly answers = new Map<string, AnswerView>();
  private readonly userElements = new Map<string, HTMLElement>();
  private readonly ctx: ViewContext;
  private readonly frames: FrameLoop;
  private readonly slashCommands: SlashCommandList;
  private readonly requestFrame: FrameScheduler;
  /** Messages before this index of the shown conversation are not built yet. */
  private builtFrom = 0;

  /** The conversation list as shown (newest first). */
  private summaries: ConversationSummary[] = [];
  private readonly conversationSelect = h('select', { className: 'conversation-select', attrs: { 'aria-label': l10n.t('Conversation') } });
  private readonly modelSelect = h('select', { className: 'model-select', attrs: { 'aria-label': l10n.t('Model') } });
  private readonly storeSelect = h('select', { className: 'store-select', attrs: { 'aria-label': l10n.t('Vector store for grounding') } });
  private readonly temperatureInput = h('input', {
    className: 'temperature',
    attrs: { type: 'number', min: '0', max: '2', step: '0.1', placeholder: l10n.t('default'), 'aria-label': l10n.t('Temperature') },
  });
  private readonly maxTokensInput = h('input', {
    className: 'max-tokens',
    attrs: { type: 'number', min: '1', step: '1', placeholder: l10n.t('default'), 'aria-label': l10n.t('Max completion tokens') },
  });
  private readonly projectCode = h('span', { className: 'project-code' });
  private readonly optionsPanel = h('div', { className: 'options-panel', attrs: { hidden: '' } });
  private readonly temperatureLabel = h('label', {}, h('span', { text: l10n.t('Temperature') }), this.temperatureInput);
  private readonly maxTokensLabel = h('label', {}, h('span', { text: l10n.t('Max completion tokens') }), this.maxTokensInput);
  /** Shown instead of the sampling options for a model that has none (it quotes its sources). */
  private readonly samplingNote = h('p', {
    className: 'sampling-note',
    attrs: { hidden: '' },
    text: l10n.t('{0} quotes its sources word for word: it has no temperature or answer length to set.', LOCAL_CHAT_MODEL),
  });
  /** False when the gateway has no web tools (Local mode): `/web`, `/crawl`, `/research` are not offered. */
  private webTools = true;
  private readonly notices = h('div', { className: 'notices' });
  /** Not a live region: the announcer says what is new, so re-rendering never repeats text. */
  private readonly messageList = h('div', {
    className: 'messages',
    attrs: { role: 'region', 'aria-label': l10n.t('Messages'), tabindex: '0' },
  });
  private readonly announcer = new Announcer();
  private readonly emptyState = h('div', { className: 'empty-state' });
  private readonly emptyHint = h('p', { className: 'hint' });
  private readonly pendingChips = h('div', { className: 'chips pending-context' });
  private readonly input = h('textarea', {
    className: 'composer-input',
    attrs: {
      rows: '3',
      placeholder: composerPlaceholder(true),
      'aria-label': l10n.t('Question'),
    },
  });
  private readonly sendButton = textButton('send', l10n.t('Send'), () => this.send(), 'primary send');
  private readonly stopButton = textButton('debug-stop', l10n.t('Stop'), () => this.stop(), 'stop');

  constructor(
    private readonly root: HTMLElement,
    private readonly host: WebviewHost,
    pipeline: MarkdownPipeline,
    requestFrame: FrameScheduler = (callback) => requestAnimationFrame(callback),
  ) {
    this.requestFrame = requestFrame;
    this.frames = new FrameLoop(this.messageList, requestFrame);
    this.ctx = {
      pipeline,
      post: (m) => host.postMessage(m),
      busy: () => this.activeAnswer() !== undefined,
      now: () => Date.now(),
      chooseModel: () => this.modelSelect.focus(),
      requestRender: (view) => this.frames.render(view),
      announcer: this.announcer,
    };
    this.slashCommands = new SlashCommandList(this.input, () => this.host.setState({ draft: this.input.value } satisfies SavedState));
    this.build();
    const saved = host.getState() as SavedState | undefined;
    this.input.value = saved?.draft ?? '';
  }

  private build(): void {
    this.conversationSelect.addEventListener('change', (event) => {
      mark(Marks.switchConversation, { conversationId: this.conversationSelect.value }, event.timeStamp);
      this.post({ type: 'openConversation', conversationId: this.conversationSelect.value });
    });
    // Not a model: it runs Use a Language Model…, and the select shows the model in use again.
    const connectServer = commandEntry(this.modelSelect, CONNECT_MODEL_SERVER, () => {
      this.renderPickers();
      this.post({ type: 'runAction', action: 'useLanguageModel' });
    });
    this.modelSelect.addEventListener('change', () => {
      if (!connectServer()) this.post({ type: 'setModel', model: this.modelSelect.value });
    });
    // The host's multi-select picker; the select shows the conversation's choice again meanwhile.
    const severalStores = commandEntry(this.storeSelect, SEVERAL_STORES, () => {
      this.renderPickers();
      this.post({ type: 'runAction', action: 'chooseStore' });
    });
    this.storeSelect.addEventListener('change', () => {
      const value = this.storeSelect.value;
      if (!severalStores() && value !== CURRENT_STORES) this.post({ type: 'setVectorStore', storeId: value || null });
    });
    for (const select of [this.modelSelect, this.storeSelect]) {
      // An entry that runs a command, passed over with the arrow keys and left: the choice in use again.
      select.addEventListener('blur', () => {
        if (select.value === CONNECT_MODEL_SERVER || select.value === SEVERAL_STORES) this.renderPickers();
      });
    }
    for (const input of [this.temperatureInput, this.maxTokensInput]) {
      input.addEventListener('change', () => this.sendOptions());
    }
    this.optionsPanel.append(this.temperatureLabel, this.maxTokensLabel, this.samplingNote, this.projectCode);
    const toggleOptions = iconButton('settings-gear', l10n.t('Conversation options'), () => {
      this.optionsPanel.toggleAttribute('hidden');
      toggleOptions.setAttribute('aria-expanded', String(!this.optionsPanel.hidden));
    });
    toggleOptions.setAttribute('aria-expanded', 'false');
    const header = h(
      'header',
      { className: 'toolbar' },
      // In a narrow column the rows wrap: a select keeps the width its current name needs and the
      // controls beside it move to the next line, each refresh button with its select. The order
      // (and so the keyboard's) is the same at every width.
      h(
        'div',
        { className: 'toolbar-row' },
        this.conversationSelect,
        h(
          'div',
          { className: 'toolbar-actions' },
          iconButton('add', l10n.t('New Chat'), () => this.post({ type: 'newChat' }), 'new-chat'),
          iconButton('trash', l10n.t('Delete Conversation'), () => this.deleteConversation(), 'delete-chat'),
        ),
      ),
      h(
        'div',
        { className: 'toolbar-row' },
        h(
          'div',
          { className: 'toolbar-group' },
          h('label', { className: 'picker' }, icon('sparkle'), this.modelSelect),
          iconButton('refresh', l10n.t('Refresh Model List'), () => this.post({ type: 'refreshModels' }), 'refresh-models'),
        ),
        h(
          'div',
          { className: 'toolbar-group' },
          h('label', { className: 'picker' }, icon('database'), this.storeSelect),
          iconButton('refresh', l10n.t('Refresh Vector Stores'), () => this.post({ type: 'refreshStores' }), 'refresh-stores'),
        ),
        toggleOptions,
      ),
      this.optionsPanel,
      this.notices,
    );
    this.input.addEventListener('keydown', (event) => {
      if (this.slashCommands.onKeyDown(event)) {
        return;
      }
      if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey && !event.isComposing) {
        event.preventDefault();
        this.send(event.timeStamp);
      }
    });
    this.input.addEventListener('input', () => this.host.setState({ draft: this.input.value } satisfies SavedState));
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.activeAnswer()) {
        event.preventDefault();
        this.stop();
      }
    });
    this.messageList.addEventListener('click', (event) => this.onMessageClick(event));
    this.messageList.addEventListener('keydown', (event) => {
      const target = event.target as HTMLElement;
      if ((event.key === 'Enter' || event.key === ' ') && target.getAttribute('role') === 'link') {
        event.preventDefault();
        target.click();
        return;
      }
      if (!event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey && moveInSources(target, event.key)) {
        event.preventDefault();
        return;
      }
      // Typing while reading the answers goes to the question box, as in VS Code's Chat view: the
      // focus moves before the key's default action, so the character lands in the box.
      if (startsTyping(event) && !isEditable(target)) {
        this.input.focus();
      }
    });
    const composer = h(
      'footer',
      { className: 'composer' },
      this.pendingChips,
      this.slashCommands.element,
      this.input,
      h('div', { className: 'composer-actions' }, this.sendButton, this.stopButton),
    );
    const main = h(
      'main',
      { className: 'conversation' },
      h('h1', { className: 'visually-hidden', text: 'DocChat' }),
      // Every citation and each answer's Sources list is a Tab stop; this one skips them (shown when focused).
      h('button', {
        className: 'skip-to-composer',
        text: l10n.t('Skip to the question box'),
        attrs: { type: 'button' },
        onClick: () => this.input.focus(),
      }),
      this.messageList,
      // …and this one goes back over them, from the question box to the header (Shift+Tab).
      h('button', {
        className: 'skip-to-top',
        text: l10n.t('Skip to the top of the chat'),
        attrs: { type: 'button' },
        onClick: () => this.conversationSelect.focus(),
      }),
      this.announcer.element,
    );
    this.root.replaceChildren(header, main, composer);
    this.root.removeAttribute('aria-busy');
    this.updateComposer();
  }

  // ------------------------------------------------------------ host messages

  receive(message: HostMessage): void {
    this.keepingFocus(() => this.apply(message));
  }

  /**
   * Runs an update; when it removed or hid the control that had the focus (Stop once the answer
   * ends, Send once it starts, a chip's remove button, Regenerate), the focus moves to the control
   * that now does that job instead of falling to the page.
   */
  private keepingFocus(update: () => void): void {
    const before = document.activeElement as HTMLElement | null;
    if (!before || before === document.body || !this.root.contains(before)) {
      update();
      return;
    }
    const chips = [...this.pendingChips.querySelectorAll<HTMLElement>('.chip-remove')];
    const chipIndex = chips.indexOf(before);
    update();
    if (before.isConnected && !before.closest('[hidden]')) return;
    const remaining = [...this.pendingChips.querySelectorAll<HTMLElement>('.chip-remove')];
    const next =
      chipIndex >= 0 && remaining.length > 0
        ? remaining[Math.min(chipIndex, remaining.length - 1)]!
        : this.activeAnswer()
          ? this.stopButton
          : this.input;
    next.focus();
  }

  private apply(message: HostMessage): void {
    switch (message.type) {
      case 'state':
        this.setWebTools(message.webTools !== false);
        return this.renderState(message.conversation, message.conversations, message.projectCode, message.announce);
      case 'turn':
        return this.renderTurn(message);
      case 'options':
        if (this.conversation?.id === message.conversationId) {
          this.conversation.options = message.options;
          this.renderOptions(this.conversation);
        }
        return;
      case 'models':
        this.models = message.catalog;
        return this.renderPickers();
      case 'stores':
        this.stores = message.catalog;
        return this.renderPickers();
      case 'streamStart':
        afterPaint(() => mark(Marks.sourcesPainted, { requestId: message.requestId }), false, this.requestFrame);
        return this.withAnswer(message.requestId, (a) => a.start(message.sources, message.searchQuery));
      case 'streamStatus':
        return this.withAnswer(message.requestId, (a) => a.status(message.phase));
      case 'streamProgress':
        return this.withAnswer(message.requestId, (a) => a.progress(message.progress));
      case 'streamDelta':
        return this.withAnswer(message.requestId, (a) => a.delta(message.text));
      case 'streamDone':
        mark(Marks.streamEnded, { requestId: message.requestId });
        afterPaint(() => mark(Marks.answerPainted, { requestId: message.requestId }), false, this.requestFrame);
        return this.withAnswer(
          message.requestId,
          (a) => a.done(message.stopped, message.usage, message.finishReason, message.nextSteps),
          true,
        );
      case 'streamError':
        return this.withAnswer(message.requestId, (a) => a.error(message.error), true);
      case 'focusComposer':
        this.input.focus();
        return;
    }
  }

  private withAnswer(requestId: string, update: (answer: AnswerView) => void, ended = false): void {
    const answer = [...this.answers.values()].find((a) => a.requestId === requestId);
    if (!answer) {
      return; // an answer of a conversation no longer shown
    }
    update(answer);
    if (ended) {
      this.updateComposer();
      for (const a of this.answers.values()) a.refresh();
    }
    this.frames.follow();
  }

  private renderState(
    conversation: Conversation,
    summaries: ConversationSummary[],
    projectCode: string,
    announce: AnnounceMode | undefined,
  ): void {
    const switched = this.conversation?.id !== conversation.id;
    this.conversation = conversation;
    this.renderConversationList(summaries, conversation.id);
    this.renderOptions(conversation);
    // The project code is the gateway's billing tag; "NA" (none set) is not worth a line.
    this.projectCode.hidden = !hasProjectCode(projectCode);
    this.projectCode.textContent = l10n.t('Project code: {0} (from the settings)', projectCode);
    this.announcer.mode = announce ?? 'asTheyStream';
    this.pendingChips.replaceChildren(
      ...conversation.pendingContext.map((item, index) => contextChip(item, () => this.post({ type: 'removeContext', index }))),
    );
    this.renderMessages(conversation, switched);
    this.updateComposer();
    if (switched) {
      this.frames.reset();
      const detail = { conversationId: conversation.id, messages: conversation.messages.length };
      afterPaint(() => mark(Marks.conversationPainted, detail), false, this.requestFrame);
    }
    this.frames.follow();
  }

  private setWebTools(offered: boolean): void {
    if (offered === this.webTools) return;
    this.webTools = offered;
    this.input.placeholder = composerPlaceholder(offered);
    this.slashCommands.enabled = offered;
  }

  /** The empty chat's hint follows the grounding: pick a store, or what is searched. */
  private renderEmptyHint(conversation: Conversation): void {
    const grounded = groundingStores(conversation.options);
    this.emptyHint.textContent = grounded.length
      ? l10n.t('Answers search {0} and cite their sources as [1], [2], …', grounded.map((s) => `“${s.name}”`).join(', '))
      : l10n.t('Pick a vector store above to ground answers in its documents; answers then cite their sources as [1], [2], …');
  }

  private renderOptions(conversation: Conversation): void {
    this.renderEmptyHint(conversation);
    this.renderPickers();
    const { temperature, maxCompletionTokens } = conversation.options;
    this.temperatureInput.value = temperature === undefined ? '' : String(temperature);
    this.maxTokensInput.value = maxCompletionTokens === undefined ? '' : String(maxCompletionTokens);
  }

  /** A new turn of the shown conversation: only its messages are built. */
  private renderTurn(turn: Extract<HostMessage, { type: 'turn' }>): void {
    const conversation = this.conversation;
    if (conversation?.id !== turn.conversationId) {
      return; // the host follows a switch with the whole state
    }
    // The answers shown have followed their streams; the messages of the last state have not.
    conversation.messages = conversation.messages.map((m) => (m.role === 'assistant' ? (this.answers.get(m.id)?.message ?? m) : m));
    conversation.messages.splice(turn.from, Infinity, ...turn.messages);
    conversation.title = turn.title;
    conversation.pendingContext = turn.pendingContext;
    // The conversation just asked is the newest: first in the list, with its (new) title.
    const summary = this.summaries.find((s) => s.id === conversation.id);
    if (summary) {
      summary.title = turn.title;
      summary.questions = conversation.messages.filter((m) => m.role === 'user').length;
      this.renderConversationList([summary, ...this.summaries.filter((s) => s !== summary)], conversation.id);
    }
    this.pendingChips.replaceChildren(
      ...conversation.pendingContext.map((item, index) => contextChip(item, () => this.post({ type: 'removeContext', index }))),
    );
    this.renderMessages(conversation, false);
    this.updateComposer();
    this.frames.resume();
  }

  private renderConversationList(summaries: ConversationSummary[], activeId: string): void {
    this.summaries = summaries;
    const labels = conversationLabels(summaries);
    this.conversationSelect.replaceChildren(
      ...summaries.map((s, i) => h('option', { text: labels[i]!, attrs: { value: s.id, ...(s.id === activeId ? { selected: '' } : {}) } })),
    );
    this.conversationSelect.value = activeId;
    // A title can be longer than the widest row: the tooltip shows it whole.
    this.conversationSelect.title = this.conversationSelect.selectedOptions[0]?.text ?? '';
  }

  /** Keeps the views of unchanged messages (and the live one); builds the others. */
  private renderMessages(conversation: Conversation, switched: boolean): void {
    if (switched) {
      for (const a of this.answers.values()) a.dispose();
      this.answers.clear();
      this.userElements.clear();
      this.builtFrom = firstPaintStart(conversation.messages);
      if (this.builtFrom > 0) this.buildEarlier(conversation);
    }
    const keepAnswers = new Map<string, AnswerView>();
    const keepUsers = new Map<string, HTMLElement>();
    const elements: HTMLElement[] = [];
    const lastAnswer = [...conversation.messages].reverse().find((m) => m.role === 'assistant');
    for (const message of conversation.messages.slice(this.builtFrom)) {
      if (message.role === 'user') {
        const element = this.userElements.get(message.id) ?? userMessageElement(message as UserMessage);
        keepUsers.set(message.id, element);
        elements.push(element);
        continue;
      }
      let view = this.answers.get(message.id);
      const live = view?.streaming && message.requestId !== undefined && view.requestId === message.requestId;
      if (!view || (!live && view.key !== answerKey(message))) {
        view?.dispose();
        view = new AnswerView(structuredClone(message), this.ctx);
      }
      view.setLast(message === lastAnswer);
      keepAnswers.set(message.id, view);
      elements.push(view.element);
    }
    for (const [id, view] of this.answers) {
      if (!keepAnswers.has(id)) view.dispose();
    }
    this.answers.clear();
    keepAnswers.forEach((v, k) => this.answers.set(k, v));
    this.userElements.clear();
    keepUsers.forEach((v, k) => this.userElements.set(k, v));
    if (elements.length === 0) {
      this.emptyState.replaceChildren(
        icon('comment-discussion', 'empty-icon'),
        h('p', { text: l10n.t('Ask a question about your documents.') }),
        this.emptyHint,
      );
      this.renderEmptyHint(conversation);
      elements.push(this.emptyState);
    }
    placeChildren(this.messageList, elements);
  }

  /** Builds the earlier messages of a conversation just shown, a few per frame, above the others. */
  private buildEarlier(conversation: Conversation): void {
    this.requestFrame(() => {
      if (this.conversation !== conversation || this.builtFrom === 0) {
        return; // another conversation is shown, or a render built everything
      }
      this.builtFrom = Math.max(0, this.builtFrom - EARLIER_PER_FRAME);
      this.renderMessages(conversation, false);
      if (this.builtFrom > 0) this.buildEarlier(conversation);
    });
  }

  private renderPickers(): void {
    const conversation = this.conversation;
    const selectedModel = conversation?.options.model ?? this.models.defaultModel ?? '';
    const completion = this.models.models.filter((m) => m.kind === 'completion');
    const legacy = this.models.models.filter((m) => m.kind === 'legacy');
    const option = (value: string, text: string) => h('option', { text, attrs: { value } });
    const groups: HTMLElement[] = [];
    if (selectedModel && !this.models.models.some((m) => m.id === selectedModel)) {
      // While the list loads (a model just chosen with "Use a Language Model…"), it is not known yet.
      groups.push(option(selectedModel, this.models.loading ? selectedModel : l10n.t('{0} (not in the current list)', selectedModel)));
    }
    groups.push(
      h(
        'optgroup',
        { attrs: { label: l10n.t('Chat completion models') } },
        ...completion.map((m) => option(m.id, m.unavailable ? l10n.t('{0} — unavailable: {1}', m.id, m.unavailable) : m.id)),
      ),
    );
    if (legacy.length) {
      const retirement = legacy[0]?.retirement;
      groups.push(
        h(
          'optgroup',
          {
            attrs: {
              label: retirement ? l10n.t('Legacy (inference endpoint, retires {0})', retirement) : l10n.t('Legacy (inference endpoint)'),
            },
          },
          ...legacy.map((m) =>
            option(m.id, m.retirement ? l10n.t('{0} — legacy, retires {1}', m.id, m.retirement) : l10n.t('{0} — legacy', m.id)),
          ),
        ),
      );
    }
    if (!this.webTools) {
      // Local mode: a model that writes its answers is one pick away.
      groups.push(
        h('optgroup', { attrs: { label: l10n.t('Model servers') } }, option(CONNECT_MODEL_SERVER, l10n.t('Use a Language Model…'))),
      );
    }
    this.modelSelect.replaceChildren(...groups);
    this.modelSelect.value = selectedModel;
    // The quoting model ignores temperature and length: the gear does not offer what does nothing.
    const sampling = !ignoresSampling(selectedModel);
    this.temperatureLabel.hidden = !sampling;
    this.maxTokensLabel.hidden = !sampling;
    this.samplingNote.hidden = sampling;
    const unavailable = this.models.models.find((m) => m.id === selectedModel)?.unavailable;
    this.modelSelect.title = this.models.loading
      ? l10n.t('Loading models…')
      : unavailable
        ? l10n.t('Model: {0} — unavailable: {1}', selectedModel, unavailable)
        : l10n.t('Model: {0}', selectedModel);

    const grounded = conversation ? groundingStores(conversation.options) : [];
    const names = grounded.map((s) => s.name).join(', ');
    const storeId = grounded.length > 1 ? CURRENT_STORES : (grounded[0]?.id ?? '');
    const storeOptions = [option('', l10n.t('No grounding (no vector store)'))];
    if (grounded.length > 1) {
      storeOptions.push(option(CURRENT_STORES, l10n.t('{0} stores: {1}', grounded.length, names)));
    } else if (storeId && !this.stores.stores.some((s) => s.id === storeId)) {
      // Not in a list of every store: it was deleted (a store made since may have its name).
      storeOptions.push(option(storeId, this.stores.complete ? l10n.t('{0} (deleted)', grounded[0]!.name) : grounded[0]!.name));
    }
    storeOptions.push(...this.stores.stores.map((s) => option(s.id, s.name)));
    storeOptions.push(option(SEVERAL_STORES, l10n.t('Several stores…')));
    this.storeSelect.replaceChildren(...storeOptions);
    this.storeSelect.value = storeId;
    const gone = this.stores.complete ? grounded.filter((g) => !this.stores.stores.some((s) => s.id === g.id)) : [];
    const goneNames = gone.map((g) => `“${g.name}”`).join(', ');
    this.storeSelect.title = !grounded.length
      ? l10n.t('Answers are not grounded in documents')
      : gone.length === grounded.length
        ? gone.length === 1
          ? l10n.t('The vector store {0} no longer exists: choose a store for this chat', goneNames)
          : l10n.t('The vector stores {0} no longer exist: choose the stores for this chat', goneNames)
        : gone.length
          ? l10n.t('Answers are grounded in {0}; {1} no longer exists', names, goneNames)
          : l10n.t('Answers are grounded in {0}', names);

    const notices = [this.models.error, this.stores.error].filter((e): e is string => Boolean(e));
    const noticeRows = notices.map((text) => h('div', { className: 'notice' }, icon('warning'), h('span', { text })));
    if (gone.length) {
      noticeRows.push(
        h(
          'div',
          { className: 'notice store-gone', attrs: { role: 'status' } },
          icon('warning'),
          h('span', {
            text:
              gone.length === 1
                ? l10n.t('The vector store “{0}” no longer exists: choose a store for this chat.', gone[0]!.name)
                : l10n.t(
                    'The vector stores {0} no longer exist: choose the stores for this chat.',
                    gone.map((g) => `“${g.name}”`).join(', '),
                  ),
          }),
          textButton('database', l10n.t('Choose a Store'), () => this.post({ type: 'runAction', action: 'chooseStore' }), 'choose-store'),
        ),
      );
    }
    this.notices.replaceChildren(...noticeRows);
  }

  // ------------------------------------------------------------ actions

  private post(message: WebviewMessage): void {
    this.host.postMessage(message);
  }

  private activeAnswer(): AnswerView | undefined {
    return [...this.answers.values()].find((a) => a.streaming);
  }

  /** `inputTime`: the timeStamp of the key press that sent it (for the latency marks). */
  private send(inputTime?: number): void {
    const text = this.input.value.trim();
    if (!text || this.activeAnswer()) {
      return;
    }
    mark(Marks.send, undefined, inputTime);
    this.frames.resume();
    this.post({ type: 'send', text });
    this.input.value = '';
    this.host.setState({ draft: '' } satisfies SavedState);
  }

  private stop(): void {
    const answer = this.activeAnswer();
    if (answer) {
      this.post({ type: 'stop', ...(answer.requestId ? { requestId: answer.requestId } : {}) });
    }
  }

  private deleteConversation(): void {
    if (this.conversation) {
      this.post({ type: 'deleteConversation', conversationId: this.conversation.id });
    }
  }

  private sendOptions(): void {
    const number = (input: HTMLInputElement, min: number, max: number, integer: boolean): number | null => {
      const value = input.value.trim() === '' ? NaN : Number(input.value);
      const valid = Number.isFinite(value) && value >= min && value <= max && (!integer || Number.isInteger(value));
      if (!valid) input.value = '';
      return valid ? value : null;
    };
    this.post({
      type: 'setOptions',
      temperature: number(this.temperatureInput, 0, 2, false),
      maxCompletionTokens: number(this.maxTokensInput, 1, 1_000_000, true),
    });
  }

  private updateComposer(): void {
    const busy = this.activeAnswer() !== undefined;
    this.sendButton.hidden = busy;
    this.stopButton.hidden = !busy;
    this.root.classList.toggle('busy', busy);
  }

  private onMessageClick(event: MouseEvent): void {
    const target = event.target as HTMLElement;
    const article = target.closest<HTMLElement>('article[data-message-id]');
    const messageId = article?.dataset.messageId;
    const action = target.closest<HTMLElement>('[data-action]');
    if (action) {
      const code = action.closest('.code-block')?.querySelector('code')?.textContent ?? '';
      this.post(action.dataset.action === 'insert' ? { type: 'insertCode', code } : { type: 'copyCode', code });
      return;
    }
    const citation = target.closest<HTMLElement>('[data-citation], [data-source]');
    if (citation && messageId) {
      event.preventDefault();
      const number = Number(citation.dataset.citation ?? citation.dataset.source);
      if (citation.dataset.citation === undefined) {
        this.post({ type: 'openSource', messageId, number });
        return;
      }
      // Which of the answer's citations of this source: the host scrolls to what that one quotes.
      const same = [...article!.querySelectorAll<HTMLElement>(`.markdown-body [data-citation="${number}"]`)];
      this.post({ type: 'openSource', messageId, number, citation: Math.max(0, same.indexOf(citation)) });
      return;
    }
    const link = target.closest<HTMLElement>('[data-href]');
    if (link) {
      event.preventDefault();
      this.post({ type: 'openLink', href: link.dataset.href! });
    }
  }
}

function composerPlaceholder(webTools: boolean): string {
  return webTools
    ? l10n.t('Ask a question, or use /web, /crawl, /research. Enter to send, Shift+Enter for a new line, Escape to stop.')
    : l10n.t('Ask a question about your documents. Enter to send, Shift+Enter for a new line, Escape to stop.');
}

/** Index of the first message shown at once: the last ones within FIRST_PAINT_TEXT, at least two. */
function firstPaintStart(messages: Conversation['messages']): number {
  let text = 0;
  let start = messages.length;
  while (start > 0 && messages.length - start < FIRST_PAINT_MESSAGES) {
    text += messages[start - 1]!.content.length;
    if (text > FIRST_PAINT_TEXT && messages.length - start >= 2) break;
    start--;
  }
  return start;
}

/**
 * Makes `elements` the children of `parent`, moving only what is out of place: nodes already in
 * order stay attached, so assistive technology does not see earlier answers inserted again.
 */
function placeChildren(parent: HTMLElement, elements: HTMLElement[]): void {
  elements.forEach((element, index) => {
    const current = parent.children[index];
    if (current !== element) parent.insertBefore(element, current ?? null);
  });
  while (parent.children.length > elements.length) parent.lastElementChild!.remove();
}

/** A key that types a character (not Space, which presses the focused control). */
function startsTyping(event: KeyboardEvent): boolean {
  return event.key.length === 1 && event.key !== ' ' && !event.ctrlKey && !event.metaKey && !event.altKey && !event.isComposing;
}

function isEditable(element: HTMLElement): boolean {
  return element.matches('input, textarea, select, [contenteditable]:not([contenteditable="false"])');
}
