/**
 * A fake `vscode` quick pick for the store picker's tests: the test drives it as a user would
 * (typing, ticking, Enter, Escape) and reads what the picker shows.
 */
import { FakeEventEmitter } from '../../../support/fakeVscode';

export type Item = { label: string; kind?: number; description?: string; store?: { id: string; name: string }; create?: true };

export class FakeQuickPick {
  title: string | undefined;
  placeholder: string | undefined;
  value = '';
  canSelectMany = false;
  busy = false;
  matchOnDescription = false;
  items: Item[] = [];
  selectedItems: Item[] = [];
  activeItems: Item[] = [];
  visible = false;
  readonly accept = new FakeEventEmitter<void>();
  readonly hidden = new FakeEventEmitter<void>();
  readonly onDidAccept = this.accept.event;
  readonly onDidHide = this.hidden.event;
  readonly selectionChanged = new FakeEventEmitter<Item[]>();
  readonly onDidChangeSelection = this.selectionChanged.event;
  readonly valueChanged = new FakeEventEmitter<string>();
  readonly onDidChangeValue = this.valueChanged.event;
  /** The user types (or clears) the filter text: VS Code tells the extension. */
  type(value: string) {
    this.value = value;
    this.valueChanged.fire(value);
  }
  /** Space on a store: VS Code ticks it and tells the extension. */
  tick(item: Item) {
    this.selectedItems = [...this.selectedItems, item];
    this.selectionChanged.fire(this.selectedItems);
  }
  show() {
    this.visible = true;
  }
  hide() {
    if (!this.visible) return;
    this.visible = false;
    this.hidden.fire();
  }
  dispose() {}
}
