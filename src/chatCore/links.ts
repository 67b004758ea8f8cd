/**
 * Which links the chat opens, answered once for the host (which opens them) and the webview
 * (which renders anything else as text). No imports, so the webview bundle stays small.
 */

/** Only web addresses whose host a URL parser accepts (never `command:`, `file:`, `vscode:`, `mailto:`). */
export function isOpenableLink(href: string): boolean {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return false;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
}
