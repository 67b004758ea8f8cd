// The user settings of `npm start`'s VS Code profile. Node built-ins only (none needed).

/**
 * The demo profile's settings: `existing` (the user's own changes, kept across starts) over the
 * demo's defaults, with workspace trust off (otherwise the extension stays disabled).
 *
 * VS Code shows its own Chat in the secondary side bar by default, where a question without
 * `@docchat` asks the user to sign in to GitHub Copilot. The demo opens with that side bar
 * closed, so DocChat's icon in the activity bar and "DocChat: Open Chat" are the way in; the Chat
 * view (and `@docchat` in it) stays available from the title bar's chat button.
 */
export function demoSettings(existing = {}) {
  return {
    'workbench.startupEditor': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'telemetry.telemetryLevel': 'off',
    // This machine may have no route to an extension gallery: don't ask one.
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'update.mode': 'none',
    ...existing,
    'security.workspace.trust.enabled': false,
  };
}
