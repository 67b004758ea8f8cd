import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { describeError } from '../../services/errors';
import type { PassageDocuments } from '../search';
import { PassageLinks } from './passageLinks';
import type { ChatStoreSelection } from '../chat';
import { ChosenStore } from './chosenStore';
import { DocChatParticipant, PARTICIPANT_ID } from './participant';
import { SEARCH_TOOL_NAME, SearchStoreTool } from './searchTool';
import { registerCommand } from '../../services/commands';

export { PARTICIPANT_ID } from './participant';
export { SEARCH_TOOL_NAME, SearchStoreTool, type SearchToolInput } from './searchTool';
export { ChosenStore } from './chosenStore';

/** Which parts of VS Code's chat API this host offers (web hosts and older builds may lack them). */
export interface ChatApiSupport {
  participants: boolean;
  tools: boolean;
}

export function chatApiSupport(api: { chat?: Partial<typeof vscode.chat>; lm?: Partial<typeof vscode.lm> } = vscode): ChatApiSupport {
  return {
    participants: typeof api.chat?.createChatParticipant === 'function',
    tools: typeof api.lm?.registerTool === 'function',
  };
}

/**
 * `@docchat` in VS Code's Chat view and the search tool for agent mode. Where the host has no
 * chat API, or refuses a registration, DocChat logs it once and goes on without them.
 */
export function register(
  context: vscode.ExtensionContext,
  services: Services,
  passages: PassageDocuments,
  chatStores?: ChatStoreSelection,
): void {
  const log = services.log.child('native-chat');
  const store = new ChosenStore(services, context.globalState, chatStores);
  const links = new PassageLinks();

  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.chooseChatStore,
      vscode.l10n.t('DocChat: could not choose the vector store for @docchat.'),
      async () => {
        const chosen = await store.choose();
        if (chosen?.length) {
          void vscode.window.showInformationMessage(
            vscode.l10n.t('@docchat and the DocChat chat now answer from {0}.', chosen.map((s) => `“${s.name}”`).join(', ')),
          );
        }
      },
    ),
    registerCommand(services.errors, Commands.openChatPassage, vscode.l10n.t('DocChat: could not open the passage.'), (ref: unknown) => {
      const opened = links.resolve(ref);
      if (!opened) throw new Error('The link names no passage.');
      return passages.open(opened.passage, opened.focus);
    }),
  );

  const support = chatApiSupport();
  if (support.participants) {
    try {
      const participant = vscode.chat.createChatParticipant(
        PARTICIPANT_ID,
        new DocChatParticipant(services, store, passages, links).handler,
      );
      participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icons', 'docchat.svg');
      context.subscriptions.push(participant);
      log.info('@docchat chat participant registered');
    } catch (error) {
      log.warn(`The @docchat chat participant is not available in this VS Code: ${describeError(error)}`);
    }
  } else {
    log.info(`VS Code ${vscode.version} has no chat participant API; @docchat is not available.`);
  }
  if (support.tools) {
    try {
      context.subscriptions.push(vscode.lm.registerTool(SEARCH_TOOL_NAME, new SearchStoreTool(services, store)));
      log.info(`Language model tool ${SEARCH_TOOL_NAME} registered`);
    } catch (error) {
      log.warn(`The DocChat search tool is not available in this VS Code: ${describeError(error)}`);
    }
  } else {
    log.info(`VS Code ${vscode.version} has no language model tool API; the DocChat search tool is not available.`);
  }
}
