import * as vscode from 'vscode';
import type { DocumentsClient } from '../../api/documents/client';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { editMetadata, fileChoiceRows, fileOfArgument, metadataSavedMessage, pickStore, type FileArgument } from '../stores';
import { registerCommand, requireDocuments } from '../../services/commands';

/** Without a tree node: pick a store, then one of its files. */
async function pickStoreFile(services: Services, client: DocumentsClient, title: string): Promise<FileArgument | undefined> {
  const store = await pickStore(services, { title });
  if (!store) {
    return undefined;
  }
  const files = await client.listVectorStoreFiles(store.id, { limit: 1000 });
  const names = new Map((await client.listFiles({ limit: 10_000 })).data.map((f) => [f.id, f.filename] as const));
  const picked = await vscode.window.showQuickPick(
    fileChoiceRows(files.data, (id) => names.get(id)),
    { title, placeHolder: vscode.l10n.t('Pick a file of "{0}"', store.name) },
  );
  return picked ? { storeId: store.id, storeName: store.name || store.id, fileId: picked.fileId, filename: picked.label } : undefined;
}

export function register(context: vscode.ExtensionContext, services: Services): void {
  const client = () => requireDocuments(services.connection);

  const setFileMetadata = async (arg?: unknown) => {
    const target = fileOfArgument(arg) ?? (await pickStoreFile(services, client(), vscode.l10n.t('Set File Metadata')));
    if (!target) {
      return;
    }
    const file = await client().retrieveFile(target.fileId);
    const name = file.filename || target.filename || target.fileId;
    await editMetadata({
      title: vscode.l10n.t('Metadata of file "{0}"', name),
      initial: file.metadata,
      saveLabel: vscode.l10n.t('Save'),
      saved: (metadata) => metadataSavedMessage(Object.keys(metadata).length, name),
      save: async (metadata) => {
        const updated = await client().updateFileMetadata(target.fileId, metadata);
        services.documentsEvents.fileChanged(updated);
        services.log.info(`Metadata of ${target.fileId} saved (${Object.keys(metadata).length} pairs)`);
      },
      onSaveError: (error) => services.errors.report(error, vscode.l10n.t('DocChat: could not save the metadata of "{0}".', name)),
    });
  };

  const setStoreFileMetadata = async (arg?: unknown) => {
    const target = fileOfArgument(arg) ?? (await pickStoreFile(services, client(), vscode.l10n.t('Set Store File Metadata')));
    if (!target?.storeId) {
      return;
    }
    const storeId = target.storeId;
    const current = await client().retrieveVectorStoreFile(storeId, target.fileId);
    const name = target.filename || target.fileId;
    const store = target.storeName ?? storeId;
    await editMetadata({
      title: vscode.l10n.t('Metadata of "{0}" in the vector store "{1}"', name, store),
      initial: current.metadata,
      saveLabel: vscode.l10n.t('Save'),
      saved: (metadata) => metadataSavedMessage(Object.keys(metadata).length, name, store),
      save: async (metadata) => {
        const updated = await client().updateVectorStoreFileMetadata(storeId, target.fileId, metadata);
        services.documentsEvents.storeFileChanged(storeId, updated);
        services.log.info(`Metadata of ${target.fileId} in ${storeId} saved (${Object.keys(metadata).length} pairs)`);
      },
      onSaveError: (error) => services.errors.report(error, vscode.l10n.t('DocChat: could not save the metadata of "{0}".', name)),
    });
  };

  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.setFileMetadata,
      vscode.l10n.t('DocChat: could not edit the file metadata.'),
      setFileMetadata,
    ),
    registerCommand(
      services.errors,
      Commands.setStoreFileMetadata,
      vscode.l10n.t('DocChat: could not edit the store file metadata.'),
      setStoreFileMetadata,
    ),
  );
}
