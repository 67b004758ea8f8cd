/**
 * A service URL as DocChat shows, logs or keys it: without its query and fragment, which may hold a
 * key (`?subscription-key=…`) the user gave only to be sent. No `vscode` import.
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return url.replace(/[?#].*$/s, '');
  }
}
