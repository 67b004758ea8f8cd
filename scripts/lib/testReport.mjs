// What `npm test`'s summary says of failed tests: a CI log is often read from its end only, so the
// summary names each failed test and the first line of its error.
// Node built-ins only: npm test imports this before the npm packages exist.

const LONGEST = 240;

const shorten = (line) => (line.length > LONGEST ? `${line.slice(0, LONGEST - 1)}…` : line);

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
    const title = [lines[i].replace(/^ {2}\d+\) /, '').trim()];
    while (!title.at(-1).endsWith(':') && i + 1 < lines.length && lines[i + 1].trim() !== '') title.push(lines[++i].trim());
    const error =
      lines
        .slice(i + 1)
        .find((line) => line.trim() !== '')
        ?.trim() ?? '';
    failures.push(shorten(`${title.join(' › ').replace(/:$/, '')}: ${error}`));
  }
  return failures;
}

/** The failed tests of the extension-host suite's results.json (test/vscode/runInCodeServer.ts). */
export function suiteFailures(results) {
  return (results.tests ?? [])
    .filter((test) => test.state === 'failed')
    .map((test) => shorten(`${test.title}: ${String(test.error ?? '').split('\n')[0]}`));
}
