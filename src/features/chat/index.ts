import * as vscode from 'vscode';
import { atFirstUse } from '../../common/atFirstUse';
import { Commands, ContextKeys } from '../../common/constants';
import type { Services } from '../../services';
import { registerCommand } from '../../services/commands';
import { ChatController } from './chatController';
import { CHAT_VIEW_TYPE } from './chatPanel';
import type * as ContextArgument from './contextArgument';
import type { SelectionSource } from '../../chatCore/protocol';
import type { PassageDocuments } from '../search';
import { pickStores } from '../stores';
import { completeWalkthroughStep } from '../walkthrough';
import { ChatSourceOpener } from './sourceOpener';

export type { ChatContextPassage } from './contextArgument';
export { CHAT_VIEW_TYPE } from './chatPanel';
export { toChatError } from './chatErrors';

// The argument check is zod's: it loads at the first use, not when DocChat activates.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const contextArgument = atFirstUse(() => require('./contextArgument') as typeof ContextArgument);

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

/** The chat panel opens at once and shows the connection as it comes. */
const NO_WAIT = { waitForConnection: false } as const;

export function register(context: vscode.ExtensionContext, services: Services, passages: PassageDocuments): ChatController {
  const log = services.log.child('chat');
  const opener = new ChatSourceOpener(passages);
  const controller = new ChatController(context, services, opener, log);
  context.subscriptions.push(
    opener,
    controller,
    // "Ask a question" in the walkthrough: an answer that came from a model and was not stopped.
    controller.onDidAnswer(({ end }) => {
      if (end.type === 'done' && !end.result.stopped && !end.result.nextSteps?.length) completeWalkthroughStep(ContextKeys.answered);
    }),
    vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel) => controller.restore(panel),
    }),
    registerCommand(
      services.errors,
      Commands.openChat,
      vscode.l10n.t('DocChat: could not open the chat.'),
      () => controller.show(),
      NO_WAIT,
    ),
    registerCommand(
      services.errors,
      Commands.newChat,
      vscode.l10n.t('DocChat: could not start a new chat.'),
      () => {
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
          selected: controller.groundingStoreIds(),
        });
        if (stores) {
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
      controller.show();
      controller.addContext([source]);
    }),
    registerCommand(
      services.errors,
      Commands.chatAccessibleView,
      vscode.l10n.t('DocChat: could not open the Accessible View of the last answer.'),
      async () => {
        const content = controller.accessibleText();
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
      controller.show();
      controller.addContext(passages);
    }),
  );
  return controller;
}
