import * as vscode from 'vscode';
import { LIMITS } from '../../api/documents/limits';
import { entryFormatHint, MetadataDraft, formatEntry, type Metadata } from './metadataDraft';

export interface MetadataEditorOptions {
  title: string;
  initial: Metadata;
  /** Label of the accept item, e.g. `Save` or `Create "reports"`. */
  saveLabel: string;
  /** The pairs go with something not created yet (a new store): Save never reads "unchanged". */
  creates?: boolean;
  /** Persists the pairs; when it throws, the editor reopens with the same pairs. */
  save(metadata: Metadata): Promise<void>;
  /** The sentence that confirms a save (none when the caller confirms in its own way). */
  saved?(metadata: Metadata): string;
  onSaveError(error: unknown): void;
}

type Action =
  { kind: 'save' } | { kind: 'add' } | { kind: 'addTyped'; text: string } | { kind: 'edit'; key: string } | { kind: 'remove'; key: string };

interface ActionItem extends vscode.QuickPickItem {
  action?: Action;
}

const EDIT_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: vscode.l10n.t('Edit') };
const REMOVE_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Remove') };
const { maxPairs, maxKeyLength, maxValueLength } = LIMITS.metadata;

/**
 * A small quick-input editor for metadata pairs: a list of the current pairs with Add / Edit /
 * Remove and Save. Resolves with the saved metadata, or undefined when the user cancelled.
 */
export async function editMetadata(options: MetadataEditorOptions): Promise<Metadata | undefined> {
  const draft = new MetadataDraft(options.initial);
  for (;;) {
    const action = await showPairs(draft, options);
    if (!action) {
      if (!draft.isDirty || (await confirmDiscard())) {
        return undefined;
      }
      continue;
    }
    switch (action.kind) {
      case 'add':
        await inputEntry(draft, options.title, undefined);
        break;
      case 'addTyped':
        // Parsed as the user typed it; the list reopens with the pair and Save first.
        draft.apply(action.text);
        break;
      case 'edit':
        await inputEntry(draft, options.title, action.key);
        break;
      case 'remove':
        draft.remove(action.key);
        break;
      case 'save': {
        const metadata = draft.toObject();
        try {
          await options.save(metadata);
          if (options.saved) void vscode.window.showInformationMessage(options.saved(metadata));
          return metadata;
        } catch (error) {
          // The pairs stay in the draft: the loop reopens the list with them.
          options.onSaveError(error);
        }
        break;
      }
    }
  }
}

function itemsFor(draft: MetadataDraft, options: MetadataEditorOptions): ActionItem[] {
  const count = vscode.l10n.t('{0} of {1} pairs', draft.size, maxPairs);
  const items: ActionItem[] = [
    {
      label: `$(check) ${options.saveLabel}`,
      description: draft.isDirty || options.creates ? count : vscode.l10n.t('{0}, unchanged', count),
      action: { kind: 'save' },
      alwaysShow: true,
    },
  ];
  if (draft.isFull) {
    items.push({
      label: vscode.l10n.t('$(circle-slash) Add pair'),
      description: vscode.l10n.t('at most {0} pairs: remove one first', maxPairs),
      alwaysShow: true,
    });
  } else {
    items.push({
      label: vscode.l10n.t('$(add) Add pair…'),
      description: vscode.l10n.t('key=value (keys ≤ {0}, values ≤ {1} characters)', maxKeyLength, maxValueLength),
      action: { kind: 'add' },
      alwaysShow: true,
    });
  }
  items.push({ label: draft.size ? vscode.l10n.t('Pairs') : vscode.l10n.t('No pairs yet'), kind: vscode.QuickPickItemKind.Separator });
  for (const [key, value] of draft.entries()) {
    items.push({ label: key, description: value, buttons: [EDIT_BUTTON, REMOVE_BUTTON], action: { kind: 'edit', key } });
  }
  return items;
}

/**
 * What typing in the list offers: `key=value` becomes an "Add" item, first and active, so Enter
 * adds the pair instead of running Save unchanged; text that is not a pair yet says why.
 */
function typedItem(draft: MetadataDraft, text: string): ActionItem | undefined {
  if (!text) {
    return undefined;
  }
  // Text that is not a pair yet ("vendor: Acme") says so, and Enter on it does nothing: it must
  // not fall through to Save, which would save the pairs without it.
  const problem = draft.validate(text);
  if (problem?.severity === 'error') {
    return { label: vscode.l10n.t('$(error) Cannot add "{0}"', text), detail: problem.message, alwaysShow: true };
  }
  return {
    label: vscode.l10n.t('$(add) Add "{0}"', text),
    description: problem?.message ?? vscode.l10n.t('Enter adds the pair; then Save'),
    action: { kind: 'addTyped', text },
    alwaysShow: true,
  };
}

/** Whether `text` is part of a pair's key or value: typed to find the pair, not to add one. */
function findsPair(draft: MetadataDraft, text: string): boolean {
  const wanted = text.toLowerCase();
  return draft.entries().some(([key, value]) => key.toLowerCase().includes(wanted) || value.toLowerCase().includes(wanted));
}

function showPairs(draft: MetadataDraft, options: MetadataEditorOptions): Promise<Action | undefined> {
  const picker = vscode.window.createQuickPick<ActionItem>();
  picker.title = `${options.title} (${draft.size}/${maxPairs})`;
  picker.placeholder = vscode.l10n.t('Type key=value and press Enter to add a pair, pick one to edit it, or save');
  picker.matchOnDescription = true;
  picker.ignoreFocusOut = true;
  const listed = itemsFor(draft, options);
  picker.items = listed;
  picker.onDidChangeValue((text) => {
    const typed = typedItem(draft, text.trim());
    if (typed && !typed.action && findsPair(draft, text.trim())) {
      // Not a pair, but it finds one to edit: the list filters to it, the reason stays below.
      picker.items = [...listed, typed];
      return;
    }
    picker.items = typed ? [typed, ...listed] : listed;
    if (typed) picker.activeItems = [typed];
  });
  return new Promise<Action | undefined>((resolve) => {
    let done = false;
    const finish = (action: Action | undefined) => {
      if (!done) {
        done = true;
        resolve(action);
        picker.hide();
      }
    };
    picker.onDidAccept(() => {
      const action = (picker.selectedItems[0] ?? picker.activeItems[0])?.action;
      if (action) {
        finish(action);
      }
    });
    picker.onDidTriggerItemButton((e) => {
      const key = e.item.action?.kind === 'edit' ? e.item.action.key : undefined;
      if (key !== undefined) {
        finish(e.button === REMOVE_BUTTON ? { kind: 'remove', key } : { kind: 'edit', key });
      }
    });
    picker.onDidHide(() => {
      finish(undefined);
      picker.dispose();
    });
    picker.show();
  });
}

/** Validation of the entry input box: an error refuses the entry, a warning only informs. */
export function entryValidator(draft: MetadataDraft, editing: string | undefined) {
  return (input: string): vscode.InputBoxValidationMessage | undefined => {
    const problem = draft.validate(input, editing);
    if (!problem) {
      return undefined;
    }
    return {
      message: problem.message,
      severity: problem.severity === 'warning' ? vscode.InputBoxValidationSeverity.Warning : vscode.InputBoxValidationSeverity.Error,
    };
  };
}

/** Asks for one `key=value` entry; a bad entry is refused with a message and nothing changes. */
async function inputEntry(draft: MetadataDraft, title: string, editing: string | undefined): Promise<void> {
  const current = editing !== undefined ? draft.get(editing) : undefined;
  const value = current !== undefined && editing !== undefined ? formatEntry(editing, current) : '';
  const text = await vscode.window.showInputBox({
    title: editing !== undefined ? vscode.l10n.t('{0}: edit "{1}"', title, editing) : vscode.l10n.t('{0}: add a pair', title),
    prompt: vscode.l10n.t(
      '{0} Keys ≤ {1}, values ≤ {2} characters, at most {3} pairs.',
      entryFormatHint(),
      maxKeyLength,
      maxValueLength,
      maxPairs,
    ),
    placeHolder: vscode.l10n.t('key=value'),
    value,
    valueSelection: editing !== undefined ? [editing.length + 1, value.length] : undefined,
    ignoreFocusOut: true,
    validateInput: entryValidator(draft, editing),
  });
  if (text !== undefined) {
    draft.apply(text, editing);
  }
}

async function confirmDiscard(): Promise<boolean> {
  const discard = vscode.l10n.t('Discard Changes');
  const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Discard the unsaved metadata changes?'), { modal: true }, discard);
  return choice === discard;
}
