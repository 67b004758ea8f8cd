/**
 * The chat's per-frame work: render the answer text that arrived since the last frame and keep the
 * newest text in view while the user has not scrolled up. However many deltas arrive, an answer
 * renders at most once per animation frame, and nothing reads layout per delta.
 */

/** Runs a callback before the next paint (`requestAnimationFrame`; tests step frames by hand). */
export type FrameScheduler = (callback: () => void) => void;

/** Something with buffered text to render; false when there was none. */
export interface FrameRenderable {
  render(): boolean;
}

/** How close to the bottom (px) still counts as "following" the answer. */
const FOLLOW_THRESHOLD = 48;

/** Keys that scroll a focused list. */
const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

export class FrameLoop {
  /** The user has not scrolled away from the end of the conversation. */
  private following = true;
  /** Where the last automatic scroll put the list (a scroll above it is the user's). */
  private autoScrollTop = 0;
  private scrollPending = false;
  /**
   * The user has touched the list's scrolling (wheel, touch, scroll keys, the scrollbar) since it
   * last followed the end. Only then is a scroll up the user's: a layout change (text re-rendered at
   * the end of an answer, an image or a code block settling) can lower `scrollTop` by itself.
   */
  private userScrolling = false;
  private frameRequested = false;
  private readonly toRender = new Set<FrameRenderable>();

  constructor(
    private readonly list: HTMLElement,
    private readonly requestFrame: FrameScheduler,
  ) {
    list.addEventListener('scroll', () => this.onScroll(), { passive: true });
    const intent = () => {
      this.userScrolling = true;
    };
    list.addEventListener('wheel', intent, { passive: true });
    list.addEventListener('touchmove', intent, { passive: true });
    // The scrollbar is part of the list itself; a press on a message is not a scroll.
    list.addEventListener('pointerdown', (event) => event.target === list && intent());
    list.addEventListener('keydown', (event) => SCROLL_KEYS.has(event.key) && intent());
  }

  /** Renders `view` in the next frame (once, however often it is asked). */
  render(view: FrameRenderable): void {
    this.toRender.add(view);
    this.schedule();
  }

  /** Scrolls to the end in the next frame, if the user follows the conversation. */
  follow(): void {
    if (this.following) {
      this.scrollPending = true;
      this.schedule();
    }
  }

  /** Another conversation is shown: follow its end again. */
  reset(): void {
    this.resume();
    this.autoScrollTop = 0;
  }

  /** A new question: whatever the user read before, the conversation follows its end again. */
  resume(): void {
    this.following = true;
    this.userScrolling = false;
    this.follow();
  }

  private schedule(): void {
    if (!this.frameRequested) {
      this.frameRequested = true;
      this.requestFrame(() => this.onFrame());
    }
  }

  /**
   * First follow the answer (the layout of the last frame is still valid, since deltas only buffer
   * text, so reading it forces no layout), then render the buffered text. The new text is scrolled
   * into view in the next frame.
   */
  private onFrame(): void {
    this.frameRequested = false;
    if (this.scrollPending) {
      this.scrollPending = false;
      if (this.following) {
        this.list.scrollTop = this.list.scrollHeight;
        this.autoScrollTop = this.list.scrollTop;
      }
    }
    let rendered = false;
    for (const view of this.toRender) {
      rendered = view.render() || rendered;
    }
    this.toRender.clear();
    if (rendered) {
      this.follow();
    }
  }

  /** Only the user's scrolling changes "following": up stops it, back to the end resumes it. */
  private onScroll(): void {
    const list = this.list;
    if (list.scrollHeight - list.scrollTop - list.clientHeight < FOLLOW_THRESHOLD) {
      this.following = true;
      this.userScrolling = false;
    } else if (this.userScrolling && list.scrollTop < this.autoScrollTop - 1) {
      this.following = false;
    }
  }
}
