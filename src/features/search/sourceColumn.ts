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
 * The group a source opens in. `undefined`: no group shows the chat, so the active group (as
 * VS Code opens any editor). Otherwise always a group named by its column, never the chat's: the
 * group the previous source opened in (`previous`) while it still exists, else `preferred` (the
 * group the user last edited in), else the active group, else the first other group, else a new
 * group beside the chat. Never "the active group" while the chat is on screen: the extension host
 * learns late that a click into the chat made the chat's group the active one, and a source opened
 * there would hide the chat.
 */
export function chooseSourceColumn(groups: readonly GroupView[], preferred?: number, previous?: number): number | undefined {
  const others = groups.filter((g) => !g.showsChat);
  if (others.length === groups.length) return undefined;
  const other = (column: number | undefined) => others.find((g) => g.viewColumn === column)?.viewColumn;
  return other(previous) ?? other(preferred) ?? others.find((g) => g.isActive)?.viewColumn ?? others[0]?.viewColumn ?? BESIDE_COLUMN;
}

/** The group the last source opened in (sources from the chat and from search alike). */
let previousSourceColumn: number | undefined;

/** Notes the group a source opened in, so the next source opens there too. */
export function sourceOpenedIn(column: vscode.ViewColumn | undefined): void {
  if (column !== undefined) previousSourceColumn = column;
}

/** A tab that is the DocChat chat panel (VS Code prefixes a webview tab's view type). */
function isChatTab(tab: vscode.Tab | undefined): boolean {
  const input = tab?.input;
  return input instanceof vscode.TabInputWebview && (input.viewType === ViewIds.chat || input.viewType.endsWith(`-${ViewIds.chat}`));
}

/**
 * The column to open a source in, from VS Code's tab groups (see `chooseSourceColumn`).
 * `chatColumn`: where the caller knows the chat panel is; `preferred`: the group last edited in.
 * A source opened in the column returned is noted with `sourceOpenedIn`.
 */
export function sourceColumnFor(chatColumn?: vscode.ViewColumn, preferred?: vscode.ViewColumn): vscode.ViewColumn | undefined {
  const groups = vscode.window.tabGroups.all.map((g) => ({
    viewColumn: g.viewColumn,
    isActive: g.isActive,
    showsChat: g.viewColumn === chatColumn || isChatTab(g.activeTab),
  }));
  return chooseSourceColumn(groups, preferred, previousSourceColumn) as vscode.ViewColumn | undefined;
}
