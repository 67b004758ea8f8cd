// Webview script loaded at the first code block (see highlightLoader.ts): highlight.js with its
// common languages, handed to the panel's script.
import hljs from 'highlight.js/lib/common';
import './highlightLoader';

window.docchatHighlighterLoaded?.(hljs);
