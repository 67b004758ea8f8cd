// @ts-check
/**
 * The layers of src/, each with the layers it may import (besides itself). ESLint enforces it
 * (eslint.config.mjs) and an architecture unit test checks the real imports against it.
 * Only the layers in VSCODE_LAYERS (and src/extension.ts) may import `vscode`.
 */
export const LAYER_IMPORTS = /** @type {const} */ ({
  common: [],
  api: ['common'],
  backend: ['api', 'common'],
  workers: ['common'],
  chatCore: ['api', 'common'],
  services: ['api', 'chatCore', 'common'],
  features: ['api', 'chatCore', 'common', 'mcp', 'services', 'workers'],
  // The MCP server is a Node process of its own: it starts the local backend through
  // services/localBackend/, which imports no vscode either.
  mcp: ['api', 'chatCore', 'common', 'services'],
});

export const VSCODE_LAYERS = ['services', 'features'];

/** The webview bundle (media/) shares only the chat core with the extension. */
export const WEBVIEW_IMPORTS = ['chatCore'];
