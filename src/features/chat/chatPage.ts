/**
 * The chat webview's HTML and content security policy. No `vscode` import: the URIs come in as
 * strings, so the lockdown is unit-tested.
 */
import { randomBytes } from 'node:crypto';

/** 128 random bits from the OS, base64: a fresh one for every page load. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Nothing is allowed unless listed: scripts only with this page's nonce, styles and fonts only
 * from the bundle folder, images only from there or inline data (model output never renders an
 * <img>, so no remote image is fetched), no connections, frames, forms or base URL.
 */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export interface ChatPageAssets {
  /** The webview's `cspSource`. */
  cspSource: string;
  scriptUri: string;
  styleUris: string[];
  nonce?: string;
  /** The translations of the webview's strings (`vscode.l10n.bundle`); none for English. */
  l10nBundle?: Record<string, string>;
  /** The display language (`vscode.env.language`), for the page's `lang`. */
  language?: string;
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function renderChatPage(assets: ChatPageAssets): string {
  const nonce = assets.nonce ?? createNonce();
  const bundle = assets.l10nBundle ? ` data-l10n="${escapeAttribute(JSON.stringify(assets.l10nBundle))}"` : '';
  const styles = assets.styleUris.map((uri) => `<link rel="stylesheet" href="${escapeAttribute(uri)}">`).join('\n');
  return `<!DOCTYPE html>
<html lang="${escapeAttribute(assets.language ?? 'en')}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(contentSecurityPolicy(assets.cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles}
<title>DocChat</title>
</head>
<body>
<div id="app" class="app" aria-busy="true"${bundle}></div>
<script nonce="${escapeAttribute(nonce)}" src="${escapeAttribute(assets.scriptUri)}"></script>
</body>
</html>`;
}
