// What `npm test`'s summary says of failed tests: a CI log is often read from its end only, so the
// summary names each failed test and the first line of its error.
// Node built-ins only: npm test imports this before the npm packages exist.

// Long enough for an assertion message that prints the state it saw, short enough to stay one line of a log.
const LONGEST = 600;

const shorten = (line) => (line.length > LONGEST ? `${line.slice(0, LONGEST - 1)}…` : line);

/** The first line of a mocha error: indented five spaces ("     AssertionError …"). */
const ERROR_LINE = /^ {5}\S/;
/** A suite or test title of a failure, indented deeper than its error. */
const NESTED_TITLE = /^ {6,}\S/;

/**
 * The failed tests of a spec reporter's output, as "suite › test: first line of the error", so the
 * summary (the part of a long log people read first) names them.
 */
export function mochaFailures(plain) {
  const lines = plain.split('\n');
  const start = lines.findIndex((line) => /^\s*\d+ failing\s*$/.test(line));
  if (start < 0) return [];
  const failures = [];
  for (let i = start + 1; i < lines.length; i++) {
    if (!/^ {2}\d+\) \S/.test(lines[i])) continue;
    // The suites, then the test: each on a line of its own, deeper each time; a title's own line
    // breaks carry on without indentation. The error follows, five spaces in.
    let title = lines[i].replace(/^ {2}\d+\) /, '').trim();
    while (i + 1 < lines.length && lines[i + 1].trim() !== '' && !ERROR_LINE.test(lines[i + 1])) {
      const next = lines[++i];
      title += NESTED_TITLE.test(next) ? ` › ${next.trim()}` : ` ${next.trim()}`;
    }
    const rest = lines.slice(i + 1);
    const at = rest.findIndex((line) => ERROR_LINE.test(line));
    let error = at < 0 ? '' : rest[at].trim();
    // "Error:" with nothing after it: the message starts on the next line.
    if (/^[\w.[\] ]*:$/.test(error) && rest[at + 1]?.trim()) error += ` ${rest[at + 1].trim()}`;
    failures.push(shorten(`${title.replace(/:$/, '')}: ${error}`));
    if (at >= 0) i += at + 1;
  }
  return failures;
}

/** The failed tests of the extension-host suite's results.json (test/vscode/runInCodeServer.ts). */
export function suiteFailures(results) {
  const failed = (results.tests ?? [])
    .filter((test) => test.state === 'failed')
    .map((test) => shorten(`${test.title}: ${String(test.error ?? '').split('\n')[0]}`));
  if (results.crashed) failed.push(shorten(`the suite crashed: ${String(results.crashed).split('\n')[0]}`));
  return failed;
}
