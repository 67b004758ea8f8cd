/** "suite › test: first line of the error" for each failed test of a mocha spec reporter's output. */
export function mochaFailures(plain: string): string[];
/** "test: first line of the error" for each failed test of the extension-host suite's results, and its crash. */
export function suiteFailures(results: { tests?: { title: string; state: string; error?: string }[]; crashed?: string }): string[];
