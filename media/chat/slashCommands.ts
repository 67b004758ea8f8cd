/**
 * The composer's slash-command suggestions: typing `/` (and the start of a name) lists the
 * gateway tools; Up/Down choose, Tab or Enter completes (`/web `), Escape closes the list.
 */
import * as l10n from '@vscode/l10n';
import { TOOL_COMMANDS } from '../../src/chatCore/slashCommands';
import { h } from './dom';

const PARTIAL_COMMAND = /^\/(\w*)$/;

export class SlashCommandList {
  readonly element = h('ul', {
    className: 'slash-commands',
    attrs: { id: 'slash-commands', role: 'listbox', 'aria-label': l10n.t('Commands'), hidden: '' },
  });
  private matches: typeof TOOL_COMMANDS = [];
  private selected = 0;
  /** Closed with Escape: stays closed until the text changes. */
  private dismissed = false;
  private offered = true;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly onComplete: () => void,
  ) {
    // The composer is an ARIA combobox whose popup is this list: the focus stays in the composer,
    // and aria-activedescendant tells assistive technology which command Up/Down chose.
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-haspopup', 'listbox');
    input.setAttribute('aria-controls', this.element.id);
    input.setAttribute('aria-expanded', 'false');
    input.addEventListener('input', () => {
      this.dismissed = false;
      this.update();
    });
    this.element.addEventListener('mousedown', (event) => {
      // Keeps the focus in the composer; the click picks the command.
      event.preventDefault();
      const item = (event.target as HTMLElement).closest<HTMLElement>('[data-command]');
      if (item) this.complete(item.dataset.command!);
    });
  }

  /** False when the gateway has no web tools (Local mode): nothing is suggested. */
  set enabled(offered: boolean) {
    this.offered = offered;
    this.update();
  }

  get visible(): boolean {
    return !this.element.hidden;
  }

  update(): void {
    const match = PARTIAL_COMMAND.exec(this.input.value);
    const prefix = match?.[1]?.toLowerCase();
    this.matches = prefix === undefined || this.dismissed || !this.offered ? [] : TOOL_COMMANDS.filter((c) => c.name.startsWith(prefix));
    this.selected = Math.min(this.selected, Math.max(0, this.matches.length - 1));
    this.element.hidden = this.matches.length === 0;
    this.input.setAttribute('aria-expanded', String(!this.element.hidden));
    const chosen = this.matches[this.selected];
    if (chosen) this.input.setAttribute('aria-activedescendant', optionId(chosen.name));
    else this.input.removeAttribute('aria-activedescendant');
    this.element.replaceChildren(
      ...this.matches.map((command, index) =>
        h(
          'li',
          {
            className: index === this.selected ? 'slash-command selected' : 'slash-command',
            attrs: {
              id: optionId(command.name),
              role: 'option',
              'data-command': command.name,
              'aria-selected': String(index === this.selected),
            },
          },
          h('span', { className: 'slash-usage', text: command.usage }),
          h('span', { className: 'slash-description', text: describeCommand(command.name) ?? command.description }),
        ),
      ),
    );
  }

  /** Handles the composer's keys while the list shows; true when the key was used. */
  onKeyDown(event: KeyboardEvent): boolean {
    if (!this.visible || event.isComposing) {
      return false;
    }
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        this.selected = (this.selected + (event.key === 'ArrowDown' ? 1 : this.matches.length - 1)) % this.matches.length;
        this.update();
        break;
      case 'Tab':
      case 'Enter':
        if (event.shiftKey) return false;
        this.complete(this.matches[this.selected]!.name);
        break;
      case 'Escape':
        this.dismissed = true;
        this.update();
        break;
      default:
        return false;
    }
    event.preventDefault();
    event.stopPropagation();
    return true;
  }

  private complete(name: string): void {
    this.input.value = `/${name} `;
    this.dismissed = false;
    this.update();
    this.input.focus();
    this.onComplete();
  }
}

function optionId(name: string): string {
  return `slash-command-${name}`;
}

/** The chat core's descriptions stay English (the host uses them too); the panel shows them translated. */
function describeCommand(name: string): string | undefined {
  switch (name) {
    case 'web':
      return l10n.t('Search the web and show the results with their sources.');
    case 'crawl':
      return l10n.t('Fetch web pages and add their text to the conversation as context.');
    case 'research':
      return l10n.t('Start a web research task, show its progress, then its answer with sources.');
    default:
      return undefined;
  }
}
