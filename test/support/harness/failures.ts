import type { VSCodeSession } from './vscode';

/**
 * Registers a mocha `afterEach` that keeps the evidence of a failed e2e test: a screenshot in
 * test-results/ and the "DocChat" output channel in the test output.
 */
export function captureFailures(currentSession: () => VSCodeSession | undefined): void {
  afterEach(async function () {
    const session = currentSession();
    if (!session || this.currentTest?.state !== 'failed') {
      return;
    }
    await session.screenshot(`failure ${this.currentTest.title}`).catch(() => undefined);
    console.log(`DocChat output channel:\n${session.outputChannel()}`);
  });
}
