import Mocha from 'mocha';

// Runs the extension-host suite with mocha bundled in (the test bundle carries its own mocha, so
// nothing is loaded from the repository at run time) and collects a result per test.

export interface SuiteFile {
  file: string;
  /** Evaluates the test file; its describe()/it() calls register on the current mocha. */
  load: () => void;
}

export interface TestResult {
  title: string;
  file?: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  error?: string;
}

export interface SuiteResults {
  vscodeVersion: string;
  passed: number;
  failed: number;
  pending: number;
  tests: TestResult[];
}

export async function runSuite(files: SuiteFile[], vscodeVersion: string): Promise<SuiteResults> {
  // DOCCHAT_EXTHOST_GREP runs only the tests whose full title matches (one file, or one break's tests).
  const grep = process.env.DOCCHAT_EXTHOST_GREP;
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec', forbidOnly: true, ...(grep ? { grep } : {}) });
  for (const { file, load } of files) {
    mocha.suite.emit('pre-require', globalThis, file, mocha);
    load();
    mocha.suite.emit('require', undefined, file, mocha);
    mocha.suite.emit('post-require', globalThis, file, mocha);
  }
  const tests: TestResult[] = [];
  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', (test) => tests.push({ title: test.fullTitle(), file: test.file, state: 'passed', durationMs: test.duration }));
    runner.on('pending', (test) => tests.push({ title: test.fullTitle(), file: test.file, state: 'pending' }));
    // 'fail' also fires for hooks (before/after), which then count as a failed "test".
    runner.on('fail', (test, error: Error) =>
      tests.push({ title: test.fullTitle(), file: test.file, state: 'failed', error: error.stack ?? String(error) }),
    );
  });
  return {
    vscodeVersion,
    passed: tests.filter((t) => t.state === 'passed').length,
    failed: tests.filter((t) => t.state === 'failed').length,
    pending: tests.filter((t) => t.state === 'pending').length,
    tests,
  };
}
