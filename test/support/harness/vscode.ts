import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { removeAfterLocalBackends, stopLocalBackends } from './localBackends';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startCodeServer, type CodeServer } from './codeServer';
import { installDocChat, installExtensionFolder, type InstalledExtension } from './extensionInstall';
import { extensionErrors, readExtensionHostLog, readOutputChannel } from './logs';
import { CHROMIUM_PATH, slug, testResultsRoot } from './paths';
import {
  answerQuickInput,
  closeQuickInput,
  enterSecret,
  notificationTexts,
  RECORD_NOTIFICATIONS_SCRIPT,
  openViewContainer,
  runCommand,
  viewPane,
  waitForWorkbench,
} from './workbench';
import { pollUntil } from './poll';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Settings every harness run starts with: no trust prompt, no welcome page, nothing phoning home. */
const BASE_SETTINGS: Record<string, unknown> = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'chat.disableAIFeatures': true,
  // VS Code 1.139 in the browser looks for updates of its built-in extensions whenever the
  // connection stops being metered, ignoring the two settings above; a metered one it leaves alone.
  'network.meteredConnection': 'on',
};

/** Workspace Trust on; a folder not trusted before opens in Restricted Mode, without asking. */
const UNTRUSTED_SETTINGS: Record<string, unknown> = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'always',
};

export interface LaunchOptions {
  /** Test name: screenshots go to test-results/<name>/. */
  name?: string;
  /** `docchat.*` (or any) settings. Written to user settings and, for `machine`-scoped ones, the
   *  remote machine settings, which is where code-server reads them. */
  settings?: Record<string, unknown>;
  /** Files of the opened workspace folder: relative path -> content. */
  workspaceFiles?: Record<string, string | Uint8Array>;
  /** Extra environment for code-server and so for the extension host. */
  env?: Record<string, string>;
  /** Unpacked extension folders installed next to DocChat. */
  extraExtensions?: string[];
  /** Install DocChat itself (default true). */
  installDocChat?: boolean;
  /** Install DocChat from the build the way `npm start` does, even when there is a current .vsix. */
  installAsNpmStart?: boolean;
  /** Install the current .vsix with VS Code's command line (`--install-extension`), as a user does. */
  installWithCommandLine?: boolean;
  /**
   * `untrusted`: Workspace Trust on, and the folder opens in Restricted Mode without the trust
   * prompt, as a folder the user has not trusted does. Default: Workspace Trust off.
   */
  workspaceTrust?: 'untrusted';
  /**
   * Use DocChat once the window is up, as a user does first: show its view, which activates it and
   * connects it (in Local mode, starts the local backend). Default true; false leaves DocChat
   * untouched, e.g. to check that a window which does not use it starts nothing.
   */
  useDocChat?: boolean;
  viewport?: { width: number; height: number };
  /**
   * Opens the inspector of the first window's extension host on a free loopback port (VS Code's
   * `inspect-extensions`), e.g. to profile it; the port is `session.extensionHostInspectPort`.
   */
  inspectExtensionHost?: boolean;
  /** Runs before VS Code starts, e.g. to seed the profile's data the way `npm start` does. */
  prepare?: (dirs: { userDataDir: string; workspaceDir: string }) => Promise<void>;
}

/** One browser window of the workbench: its page and the helpers that drive it. */
export interface VSCodeWindow {
  page: Page;
  runCommand(title: string): Promise<void>;
  /** Types into the open input box or quick pick and presses Enter. */
  answerQuickInput(value: string): Promise<void>;
  closeQuickInput(): Promise<void>;
  /** Runs a "Set …" secret command by its id and types `value` into its password box. */
  enterSecret(command: string, value: string): Promise<void>;
  /** Shows the DocChat view container; resolves to the side bar. */
  openView(container?: string): ReturnType<typeof openViewContainer>;
  /** Body of a view (by its name) in the side bar. */
  viewPane(viewName: string): ReturnType<typeof viewPane>;
  /** Every notification shown in this window since it (re)loaded, including those hidden again. */
  notifications(): Promise<string[]>;
  /** Saves test-results/<name>/<NN>-<step>.png; returns its path. */
  screenshot(step: string): Promise<string>;
}

export interface VSCodeSession extends VSCodeWindow {
  browser: Browser;
  server: CodeServer;
  url: string;
  userDataDir: string;
  extensionsDir: string;
  workspaceDir: string;
  extensions: InstalledExtension[];
  /** Browser console errors and page errors seen so far, of every window of the session. */
  consoleErrors: string[];
  /** Inspector port of the first window's extension host, with `inspectExtensionHost`. */
  extensionHostInspectPort?: number;
  /**
   * Opens one more window on the same code-server in a browser context of its own: its own
   * secret storage (browser storage), the server's shared global storage and extension host per
   * window, as a second profile's or a remote and a local window are. Closed by `close()`, or
   * earlier with the window's own `close()`.
   */
  openWindow(label: string): Promise<VSCodeWindow & { close(): Promise<void> }>;
  /** Text of a log output channel ("DocChat" by default). */
  outputChannel(channel?: string): string;
  /** Waits until the output channel matches. */
  waitForOutput(pattern: RegExp, timeoutMs?: number, channel?: string): Promise<string>;
  extensionHostLog(): string;
  /** Errors the extension host logged for DocChat (a failed activation shows up here). */
  extensionErrors(): string[];
  close(): Promise<void>;
}

const clearedResultDirs = new Set<string>();

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
}

/**
 * Starts a real VS Code (code-server) with a fresh extensions dir holding the built DocChat, a
 * fresh user-data dir and workspace, opens it in Debian's Chromium and waits for the workbench.
 * Everything started is stopped by `close()`, or right away if the launch itself fails.
 */
export async function launchVSCode(options: LaunchOptions = {}): Promise<VSCodeSession> {
  const name = slug(options.name ?? 'vscode');
  const root = mkdtempSync(path.join(os.tmpdir(), 'docchat-vscode-'));
  const extensionsDir = path.join(root, 'extensions');
  const userDataDir = path.join(root, 'user-data');
  const workspaceDir = path.join(root, 'workspace');
  const resultsDir = path.join(testResultsRoot, name);
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(workspaceDir, { recursive: true });
  // Screenshots of an earlier run of the same test would mix with this run's.
  if (!clearedResultDirs.has(resultsDir)) rmSync(resultsDir, { recursive: true, force: true });
  clearedResultDirs.add(resultsDir);
  mkdirSync(resultsDir, { recursive: true });

  const trust = options.workspaceTrust === 'untrusted' ? UNTRUSTED_SETTINGS : {};
  const settings = { ...BASE_SETTINGS, ...trust, ...options.settings };
  writeJson(path.join(userDataDir, 'User/settings.json'), settings);
  // Machine-scoped settings of VS Code itself are read from the machine settings in code-server.
  const machineBase = {
    'workbench.welcomePage.walkthroughs.openOnInstall': BASE_SETTINGS['workbench.welcomePage.walkthroughs.openOnInstall'],
  };
  writeJson(path.join(userDataDir, 'Machine/settings.json'), { ...machineBase, ...options.settings });
  for (const [relative, content] of Object.entries(options.workspaceFiles ?? {})) {
    const file = path.join(workspaceDir, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }

  await options.prepare?.({ userDataDir, workspaceDir });

  const extensions: InstalledExtension[] = [];
  if (options.installDocChat !== false) {
    extensions.push(
      await installDocChat(extensionsDir, {
        asNpmStart: options.installAsNpmStart,
        withCommandLine: options.installWithCommandLine ? { userDataDir } : undefined,
      }),
    );
  }
  for (const folder of options.extraExtensions ?? []) extensions.push(installExtensionFolder(extensionsDir, folder));

  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let step = 0;
  const consoleErrors: string[] = [];

  const cleanup = async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    await stopLocalBackends(userDataDir);
    const log = readOutputChannel(userDataDir);
    if (log) writeFileSync(path.join(resultsDir, 'DocChat.log'), log);
    if (!process.env.DOCCHAT_KEEP_TMP) await removeAfterLocalBackends(root, userDataDir);
  };

  try {
    server = await startCodeServer({
      extensionsDir,
      userDataDir,
      folder: workspaceDir,
      env: options.env,
      workspaceTrust: options.workspaceTrust !== undefined,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
    // code-server's command line does not take `--inspect-extensions`, but the workbench passes the
    // same setting from its URL's `payload` to the server, which starts the extension host with it.
    const inspectPort = options.inspectExtensionHost ? await freeLoopbackPort() : undefined;
    const openBrowserWindow = async (label?: string, inspect?: number): Promise<{ page: Page; context: BrowserContext }> => {
      const context = await browser!.newContext({
        viewport: options.viewport ?? { width: 1400, height: 900 },
        // "Copy …" commands write through navigator.clipboard, which needs these in a headless browser.
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      await context.addInitScript(RECORD_NOTIFICATIONS_SCRIPT);
      const page = await context.newPage();
      const from = label ? `[${label}] ` : '';
      page.on('pageerror', (error) => consoleErrors.push(`${from}${String(error)}`));
      page.on('console', (message) => {
        if (message.type() === 'error') {
          const text = message.location().url ? `${message.text()} (${message.location().url})` : message.text();
          consoleErrors.push(`${from}${text}`);
        }
      });
      const payload = inspect ? `&payload=${encodeURIComponent(JSON.stringify([['inspect-extensions', String(inspect)]]))}` : '';
      await page.goto(`${server!.url}?folder=${encodeURIComponent(workspaceDir)}${payload}`);
      await waitForWorkbench(page);
      return { page, context };
    };
    const windowHelpers = (page: Page, label?: string): VSCodeWindow => ({
      page,
      runCommand: (title) => runCommand(page, title),
      answerQuickInput: (value) => answerQuickInput(page, value),
      closeQuickInput: () => closeQuickInput(page),
      enterSecret: (command, value) => enterSecret(page, command, value),
      openView: (container = 'DocChat') => openViewContainer(page, container),
      viewPane: (viewName) => viewPane(page, viewName),
      notifications: () => notificationTexts(page),
      async screenshot(stepName) {
        step += 1;
        const name = label ? `${label} ${stepName}` : stepName;
        const file = path.join(resultsDir, `${String(step).padStart(2, '0')}-${slug(name)}.png`);
        await page.screenshot({ path: file });
        return file;
      },
    });
    const { page } = await openBrowserWindow(undefined, inspectPort);
    // DocChat activates when it is first used, never at startup: the one place tests use it.
    if (options.useDocChat !== false && options.installDocChat !== false) await openViewContainer(page, 'DocChat');

    const session: VSCodeSession = {
      ...windowHelpers(page),
      browser,
      server,
      url: server.url,
      userDataDir,
      extensionsDir,
      workspaceDir,
      extensions,
      consoleErrors,
      extensionHostInspectPort: inspectPort,
      async openWindow(label) {
        const { page: other, context } = await openBrowserWindow(label);
        return { ...windowHelpers(other, label), close: () => context.close() };
      },
      outputChannel: (channel) => readOutputChannel(userDataDir, channel),
      // The log is a file another process writes: re-read it until it matches.
      waitForOutput: (pattern, timeoutMs = 30_000, channel) =>
        pollUntil(
          () => readOutputChannel(userDataDir, channel),
          (text) => pattern.test(text),
          { timeoutMs, intervalMs: 250, what: `output channel "${channel ?? 'DocChat'}" matching ${pattern}` },
        ),
      extensionHostLog: () => readExtensionHostLog(userDataDir),
      extensionErrors: () => extensionErrors(userDataDir),
      close: cleanup,
    };
    return session;
  } catch (error) {
    const serverOutput = server?.output() ?? '';
    await cleanup();
    if (error instanceof Error && serverOutput) error.message += `\ncode-server output:\n${serverOutput}`;
    throw error;
  }
}
