import * as vscode from 'vscode';
import { atFirstUse } from '../../common/atFirstUse';
import { Commands, ViewIds } from '../../common/constants';
import type { Services } from '../../services';
import { registerCommand } from '../../services/commands';
import type { ChatController } from './chatController';
import type * as ContextArgument from './contextArgument';
import type * as PanelFeature from './panelFeature';
import type { SelectionSource, StoreOption } from '../../chatCore/protocol';
import type { PassageDocuments } from '../search';
import { pickStores } from '../stores';
import { ChatSourceOpener } from './sourceOpener';
import { LOCAL_CHAT_MODEL } from '../../chatCore/modelTraits';

export type { ChatContextPassage } from './contextArgument';
export { toChatError } from './chatErrors';

// The argument check is zod's: it loads at the first use, not when DocChat activates.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const contextArgument = atFirstUse(() => require('./contextArgument') as typeof ContextArgument);
// The panel's controller, session and answer generation: loaded at the chat's first use.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const panelFeature = atFirstUse(() => require('./panelFeature') as typeof PanelFeature);

function selectionSource(editor: vscode.TextEditor): SelectionSource | undefined {
  const selection = editor.selection;
  const text = editor.document.getText(selection);
  if (selection.isEmpty || text.trim() === '') {
    return undefined;
  }
  return {
    kind: 'selection',
    uri: editor.document.uri.toString(),
    label: vscode.workspace.asRelativePath(editor.document.uri, false),
    languageId: editor.document.languageId,
    range: {
      startLine: selection.start.line,
      startCharacter: selection.start.character,
      endLine: selection.end.line,
      endCharacter: selection.end.character,
    },
    content: text.slice(0, contextArgument().MAX_CONTEXT_CHARS),
  };
}

/**
 * `docchat.chat.open {"inPlace": true}`, as the walkthrough runs it: the chat opens in the active
 * group, where the walkthrough is (which stays a tab there), instead of as one more column beside
 * it and VS Code's Chat view. Any other argument (a tree item, none) opens it beside the editor.
 */
function opensInPlace(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as { inPlace?: unknown }).inPlace === true;
}

/** The chat panel opens at once and shows the connection as it comes. */
const NO_WAIT = { waitForConnection: false } as const;

/** The stores the DocChat chat's current conversation answers from: the selection `@docchat` shares. */
export interface ChatStoreSelection {
  /** Undefined while the chat is not used in this window (nothing is loaded for it). */
  current(): StoreOption[] | undefined;
  /** Grounds the chat's current conversation in `stores` (and remembers the first for new chats). */
  choose(stores: readonly StoreOption[]): void;
}

export function register(context: vscode.ExtensionContext, services: Services, passages: PassageDocuments): ChatStoreSelection {
  const log = services.log.child('chat');
  // Tracks the editor a source opens beside from activation on, as it did before the chat was used.
  const opener = new ChatSourceOpener(passages);
  let created: ChatController | undefined;
  /** The chat's controller, made (and its module loaded) at the chat's first use. */
  const chat = (): ChatController => (created ??= panelFeature().createChatController(context, services, opener, log));
  // The controller loads the model and store lists whenever the connection changes; DocChat
  // connecting is a use of it, so the first change makes the controller, which then loads them.
  // That waits for the next task: the listeners after this one (the status bar's) go first.
  let deferred: ReturnType<typeof setTimeout> | undefined;
  const firstConnection = services.connection.onDidChange(() => {
    firstConnection.dispose();
    if (created) return; // it heard this change itself
    deferred = setTimeout(() => {
      const controller = chat();
      void controller.loadModels(false);
      void controller.loadStores();
    }, 0);
  });
  context.subscriptions.push({ dispose: () => clearTimeout(deferred) });
  // "Use a Language Model…" (or Stop Using a Language Model): the chat answers with the choice.
  context.subscriptions.push(
    services.modelServer.onDidChoose((choice) => void chat().followModelChoice(choice?.model ?? LOCAL_CHAT_MODEL)),
  );
  context.subscriptions.push(
    opener,
    firstConnection,
    vscode.window.registerWebviewPanelSerializer(ViewIds.chat, {
      deserializeWebviewPanel: async (panel) => chat().restore(panel),
    }),
    registerCommand(
      services.errors,
      Commands.openChat,
      vscode.l10n.t('DocChat: could not open the chat.'),
      (options: unknown) => chat().show(false, opensInPlace(options) ? vscode.ViewColumn.Active : undefined),
      NO_WAIT,
    ),
    registerCommand(
      services.errors,
      Commands.newChat,
      vscode.l10n.t('DocChat: could not start a new chat.'),
      () => {
        const controller = chat();
        controller.show();
        controller.newChat();
      },
      NO_WAIT,
    ),
    registerCommand(
      services.errors,
      Commands.chooseStoreForChat,
      vscode.l10n.t('DocChat: could not choose the vector store for the chat.'),
      async () => {
        const stores = await pickStores(services, {
          title: vscode.l10n.t('DocChat: Choose the Vector Stores the Chat Answers From'),
          selected: chat().groundingStoreIds(),
        });
        if (stores) {
          const controller = chat();
          controller.show();
          controller.setGrounding(stores.map((store) => ({ id: store.id, name: store.name || store.id })));
        }
      },
    ),
    registerCommand(services.errors, Commands.askAboutSelection, vscode.l10n.t('DocChat: could not ask about the selection.'), () => {
      const editor = vscode.window.activeTextEditor;
      const source = editor && selectionSource(editor);
      if (!source) {
        void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: select some text to ask about.'));
        return;
      }
      const controller = chat();
      controller.show();
      controller.addContext([source]);
    }),
    registerCommand(
      services.errors,
      Commands.chatAccessibleView,
      vscode.l10n.t('DocChat: could not open the Accessible View of the last answer.'),
      async () => {
        const content = chat().accessibleText();
        if (content === undefined) {
          void vscode.window.showInformationMessage(
            vscode.l10n.t('DocChat: there is no answer to show yet. Ask a question in the chat first.'),
          );
          return;
        }
        const document = await vscode.workspace.openTextDocument({ language: 'markdown', content });
        await vscode.window.showTextDocument(document, { preview: true });
      },
    ),
    registerCommand(services.errors, Commands.addChatContext, vscode.l10n.t('DocChat: could not add to the chat.'), (arg: unknown) => {
      const passages = contextArgument().parseContextArgument(arg);
      if (!passages) {
        log.warn('docchat.chat.addContext was run without a search result; ignored.');
        return;
      }
      const controller = chat();
      controller.show();
      controller.addContext(passages);
    }),
  );
  return {
    current: () => created?.groundingStores(),
    choose: (stores) => chat().setGrounding(stores),
  };
}
