/**
 * The panel's one live region. The conversation itself is not live (re-rendering it would make a
 * screen reader repeat text); instead this region is told only what is new: the text of each
 * markdown block of the streaming answer once it is finished, or the whole answer once when it is
 * done, as the `docchat.chat.announceAnswers` setting asks.
 */
import type { AnnounceMode } from '../../src/chatCore/protocol';
import { h } from './dom';

export class Announcer {
  readonly element = h('div', { className: 'visually-hidden announcer', attrs: { 'aria-live': 'polite', 'aria-relevant': 'additions' } });
  mode: AnnounceMode = 'asTheyStream';

  /** A new answer starts: earlier announcements are dropped (removals are not read). */
  begin(): void {
    this.element.replaceChildren();
  }

  /** Text of markdown blocks that just finished rendering. */
  blocks(text: string): void {
    if (this.mode === 'asTheyStream') this.say(text);
  }

  /** A phase of the answer worth hearing while nothing else is said ("Thinking…"). */
  status(text: string): void {
    if (this.mode !== 'off') this.say(text);
  }

  /** The answer ended: its whole text (when announced at the end) and how it ended. */
  end(answerText: string, ending: string | undefined): void {
    if (this.mode === 'whenDone') this.say(answerText);
    if (this.mode !== 'off' && ending) this.say(ending);
  }

  private say(text: string): void {
    const spoken = text.replace(/\s+/g, ' ').trim();
    if (spoken) this.element.append(h('p', { text: spoken }));
  }
}
