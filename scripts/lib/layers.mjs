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
  // services/localBackend/, which imports no vscode either (see LAYER_MODULES).
  mcp: ['api', 'chatCore', 'common', 'services'],
});

/**
 * Where a layer may use only some modules of a layer it imports: `layer → imported layer → modules`,
 * each a path under src/ without its extension (a folder stands for its index.ts). Any other
 * module of that layer is refused, and every module listed must be in use.
 */
export const LAYER_MODULES = /** @type {const} */ ({
  // Of services/, the MCP server needs the local backend alone (the rest of services/ is VS Code's).
  mcp: { services: ['services/localBackend'] },
});

export const VSCODE_LAYERS = ['services', 'features'];

/** The webview bundle (media/) shares only the chat core with the extension. */
export const WEBVIEW_IMPORTS = ['chatCore'];
