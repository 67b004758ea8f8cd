import * as vscode from 'vscode';
import type * as DocumentsSchemas from '../../api/documents/schemas';
import type { VectorStore } from '../../api/documents/schemas';
import { atFirstUse } from '../../common/atFirstUse';
import type { Services } from '../../services';
import { editMetadata } from './metadataEditor';
import { storeNameLike } from './storeNames';
import { requireDocuments } from '../../services/commands';

/** The name check is zod's: it loads with the first name typed, not when DocChat activates. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const schemas = atFirstUse(() => require('../../api/documents/schemas') as typeof DocumentsSchemas);

/**
 * What is wrong with a store name, naming the limit, and when the name breaks it only by its
 * characters or length, a name like it that does not ("team handbook" → "team-handbook").
 */
function nameProblem(value: string): string | undefined {
  const problem = schemas().validateStoreName(value);
  if (!problem) return undefined;
  const like = storeNameLike(value);
  return like && !schemas().validateStoreName(like) ? vscode.l10n.t('{0} For example: {1}', problem, like) : problem;
}

/**
 * Asks for a name (validated as it is typed) and optional metadata, then creates the store.
 * Resolves undefined when the user cancels. `announce: false`: no "created" notification, for a
 * store created as a step of something that tells the user about it itself (a folder's sync, whose
 * progress notification the toast would cover).
 */
export async function createStoreInteractive(
  services: Services,
  suggestedName = '',
  { announce = true }: { announce?: boolean } = {},
): Promise<VectorStore | undefined> {
  const name = await vscode.window.showInputBox({
    title: vscode.l10n.t('DocChat: Create Vector Store'),
    prompt: vscode.l10n.t('1 to 63 characters: letters, digits, hyphens (-) and underscores (_).'),
    placeHolder: vscode.l10n.t('team-handbook'),
    value: suggestedName,
    ignoreFocusOut: true,
    validateInput: (value) => nameProblem(value),
  });
  if (name === undefined) {
    return undefined;
  }
  let created: VectorStore | undefined;
  await editMetadata({
    title: vscode.l10n.t('Create "{0}": metadata (optional)', name),
    initial: {},
    saveLabel: vscode.l10n.t('Create "{0}"', name),
    creates: true,
    save: async (metadata) => {
      const client = requireDocuments(services.connection);
      created = await client.createVectorStore({ name, ...(Object.keys(metadata).length ? { metadata } : {}) });
    },
    onSaveError: (error) => services.errors.report(error, vscode.l10n.t('DocChat: could not create the vector store "{0}".', name)),
  });
  if (created) {
    services.log.info(`Created vector store ${created.id} (${created.name})`);
    await services.recentStores.touch(created.id);
    services.documentsEvents.storeChanged(created);
    if (announce) {
      void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: created the vector store "{0}".', created.name || name));
    }
  }
  return created;
}
