/**
 * highlight.js is a webview script of its own (dist/webview/highlight.js, most of the panel's
 * code by size): the panel loads it the first time an answer shows a code block with a language,
 * with this page's nonce so the CSP admits it, then highlights the blocks rendered meanwhile.
 */
import type { Highlighter, HighlighterSource } from './markdown';

declare global {
  interface Window {
    /** Set while highlight.js loads; its script calls it with the library. */
    docchatHighlighterLoaded?: (hljs: Highlighter) => void;
  }
}

export class HighlightLoader implements HighlighterSource {
  current: Highlighter | undefined;
  private requested = false;

  /**
   * @param panelScript the panel's own <script> (`document.currentScript` while it runs): highlight.js
   *   sits next to it and loads with its nonce. Without one, nothing is loaded.
   */
  constructor(
    private readonly panelScript: { readonly src: string; readonly nonce?: string } | null,
    private readonly onLoaded: (hljs: Highlighter) => void,
  ) {}

  request(): void {
    if (this.requested || !this.panelScript) return;
    this.requested = true;
    window.docchatHighlighterLoaded = (hljs) => {
      delete window.docchatHighlighterLoaded;
      this.current = hljs;
      this.onLoaded(hljs);
    };
    const script = document.createElement('script');
    script.nonce = this.panelScript.nonce ?? '';
    script.src = new URL('highlight.js', this.panelScript.src).href;
    document.head.append(script);
  }
}
