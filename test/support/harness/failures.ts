import type { VSCodeSession } from './vscode';

/**
 * Browser console errors that come from code-server's own page whatever the extensions do: the
 * workbench asks for `vsda`, a signing module only Microsoft's builds ship; a window reload logs
 * the shutdown work a browser cannot wait for, the built-in TypeScript task detection it cut
 * short and the window log it can no longer write; declining a tool's confirmation is logged
 * as the tool call being cancelled; and VS Code 1.139's dictation service asks for a GitHub session
 * at startup and logs an error when the built-in GitHub Authentication extension has not
 * registered within 5 s, as on a busy machine. VS Code 1.104's built-in Markdown extension loads
 * Node's `punycode` module when a Markdown file is opened, and its Node 22 prints a deprecation
 * warning for it (none of DocChat's bundles loads `punycode`). On a busy machine VS Code aborts a
 * save participant of its built-in extensions after 1,750 ms and logs it (DocChat registers none:
 * `onWillSaveTextDocument` appears nowhere in `src/`).
 */
const WORKBENCH_NOISE: RegExp[] = [
  /status of 404 .*\/static\/node_modules\/vsda\/rust\/web\/vsda(_bg\.wasm|\.js)\)$/,
  /\[lifecycle\] Long running operations during shutdown are unsupported in the web \(id: [\w.]+\)/,
  /^Timed out getting tasks from {2}typescript /,
  /Unable to write file 'vscode-log:[^']*' \(Error: IndexedDB database 'vscode-web-db' is closed\.\)/,
  /\[LanguageModelToolsService#invokeTool\] Error from tool docchat_\w+ with parameters .*:\nCanceled: Canceled/,
  /Error: Timed out waiting for authentication provider 'github' to register\.\n\s+at \w+\.tryActivateProvider /,
  /\[Extension Host\] .*\(node:\d+\) \[DEP0040\] DeprecationWarning: The `punycode` module is deprecated\./,
  /Error: Aborted onWillSaveTextDocument-event after \d+ms/,
];

interface Seen {
  console: number;
  extensionHost: number;
}

/**
 * Registers a mocha `afterEach` that keeps the evidence of a failed e2e test (a screenshot in
 * test-results/ and the "DocChat" output channel in the test output), and fails a test that passed
 * while leaving a browser console error or a DocChat error in the extension host's log.
 */
export function captureFailures(currentSession: () => VSCodeSession | undefined): void {
  const seen = new WeakMap<VSCodeSession, Seen>();
  afterEach(async function () {
    const session = currentSession();
    if (!session) {
      return;
    }
    if (this.currentTest?.state === 'failed') {
      await session.screenshot(`failure ${this.currentTest.title}`).catch(() => undefined);
      console.log(`DocChat output channel:\n${session.outputChannel()}`);
    }
    const unexpected = newErrors(session, seen);
    if (this.currentTest?.state === 'passed' && unexpected.length > 0) {
      throw new Error(`"${this.currentTest.title}" left errors behind:\n${unexpected.join('\n')}`);
    }
  });
}

/**
 * For tests that start their own VS Code session and servers (a stub model server): failures are
 * captured as `captureFailures` does, then after each test the session and every server are closed
 * and `forget` clears the test's variables, so the next test starts from nothing.
 */
export function closedAfterEach(
  session: () => VSCodeSession | undefined,
  servers: () => ReadonlyArray<{ close(): Promise<unknown> } | undefined>,
  forget: () => void,
): void {
  captureFailures(session);
  afterEach(async () => {
    await session()?.close();
    for (const server of servers()) await server?.close();
    forget();
  });
}

/** Console and extension-host errors not seen at the last call (for tests that manage their own session). */
export function newErrors(session: VSCodeSession, seen = new WeakMap<VSCodeSession, Seen>()): string[] {
  const from = seen.get(session) ?? { console: 0, extensionHost: 0 };
  const consoleErrors = session.consoleErrors.slice(from.console).filter((e) => !WORKBENCH_NOISE.some((p) => p.test(e)));
  const extensionHost = session.extensionErrors();
  seen.set(session, { console: session.consoleErrors.length, extensionHost: extensionHost.length });
  return [...consoleErrors.map((e) => `console: ${e}`), ...extensionHost.slice(from.extensionHost).map((e) => `extension host: ${e}`)];
}
