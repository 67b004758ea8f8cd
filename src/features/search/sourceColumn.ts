/**
 * Where a source (a cited passage, a search result) opens: never in the editor group that shows
 * the DocChat chat, which it would hide. The choice is plain data in, a column out, so it is tested
 * without VS Code; `sourceColumnFor` gathers the data from VS Code's tab groups.
 */
import * as vscode from 'vscode';
import { ViewIds } from '../../common/constants';

/** What the choice needs to know of one editor group. */
export interface GroupView {
  readonly viewColumn: number;
  readonly isActive: boolean;
  /** The DocChat chat panel is this group's active tab (or the caller knows it is there). */
  readonly showsChat: boolean;
}

/** `vscode.ViewColumn.Beside`, without the import in the pure part. */
export const BESIDE_COLUMN = -2;

/**
 * The group a source opens in. `undefined`: the active group, which does not show the chat (as
 * VS Code opens any editor). Otherwise `preferred` (the group the user last edited in) when it is
 * another group than the chat's, else the first other group, else a new group beside the chat.
 */
export function chooseSourceColumn(groups: readonly GroupView[], preferred?: number): number | undefined {
  const active = groups.find((g) => g.isActive);
  if (active && !active.showsChat) return undefined;
  const others = groups.filter((g) => !g.showsChat);
  return others.find((g) => g.viewColumn === preferred)?.viewColumn ?? others[0]?.viewColumn ?? BESIDE_COLUMN;
}

/** A tab that is the DocChat chat panel (VS Code prefixes a webview tab's view type). */
function isChatTab(tab: vscode.Tab | undefined): boolean {
  const input = tab?.input;
  return input instanceof vscode.TabInputWebview && (input.viewType === ViewIds.chat || input.viewType.endsWith(`-${ViewIds.chat}`));
}

/**
 * The column to open a source in, from VS Code's tab groups (see `chooseSourceColumn`).
 * `chatColumn`: where the caller knows the chat panel is; `preferred`: the group last edited in.
 */
export function sourceColumnFor(chatColumn?: vscode.ViewColumn, preferred?: vscode.ViewColumn): vscode.ViewColumn | undefined {
  const groups = vscode.window.tabGroups.all.map((g) => ({
    viewColumn: g.viewColumn,
    isActive: g.isActive,
    showsChat: g.viewColumn === chatColumn || isChatTab(g.activeTab),
  }));
  return chooseSourceColumn(groups, preferred) as vscode.ViewColumn | undefined;
}
