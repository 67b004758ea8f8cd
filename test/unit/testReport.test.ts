import * as assert from 'node:assert/strict';

/** `npm test`'s summary of failed tests (scripts/lib/testReport.mjs). */
describe("npm test's summary of failed tests", () => {
  const load = async () => import('../../scripts/lib/testReport.mjs');

  // Mocha's spec reporter, as printed for a timeout and a nested failure with a two-line title.
  const spec = [
    '  Outer suite',
    '    1) times out',
    '    inner',
    '      ✔ passes',
    '',
    '  1 passing (18ms)',
    '  2 failing',
    '',
    '  1) Outer suite',
    '       times out:',
    '     Error: Timeout of 10ms exceeded. For async tests and hooks, ensure "done()" is called.',
    '      at listOnTimeout (node:internal/timers:581:17)',
    '',
    '  2) Outer suite',
    '       inner',
    '         fails with a title that is',
    'split:',
    '     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
    '      at Context.<anonymous> (a.test.js:4:64)',
    '',
  ].join('\n');

  it("names each failed test of mocha's output with its suites and the first line of its error", async () => {
    const { mochaFailures } = await load();
    assert.deepEqual(mochaFailures(spec), [
      'Outer suite › times out: Error: Timeout of 10ms exceeded. For async tests and hooks, ensure "done()" is called.',
      'Outer suite › inner › fails with a title that is split: AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
    ]);
  });

  it('reads titles that end in a colon, failed hooks, and an error whose message starts on its next line', async () => {
    const { mochaFailures } = await load();
    const output = [
      '  2 failing',
      '',
      '  1) Settings:',
      '       "before all" hook for "reads the file:":',
      '     Error: ',
      'the file is missing',
      '      at x.js:1:1',
      '',
      '  2) Ratio',
      '       is 1:',
      '2 exactly:',
      '     Error: off by one',
      '',
    ].join('\n');
    assert.deepEqual(mochaFailures(output), [
      'Settings: › "before all" hook for "reads the file:": Error: the file is missing',
      'Ratio › is 1: 2 exactly: Error: off by one',
    ]);
  });

  it('names nothing when nothing failed, and shortens a long line', async () => {
    const { mochaFailures } = await load();
    assert.deepEqual(mochaFailures('  Suite\n    ✔ passes\n\n  1 passing (3ms)\n'), []);
    const [long] = mochaFailures(`  1 failing\n\n  1) Suite\n       test:\n     Error: ${'x'.repeat(1000)}\n`);
    assert.equal(long.length, 600);
    assert.ok(long.startsWith('Suite › test: Error: xxx') && long.endsWith('…'));
  });

  it("names the extension-host suite's failed tests from its results", async () => {
    const { suiteFailures } = await load();
    const results = {
      tests: [
        { title: 'activates', state: 'passed' },
        { title: 'opens the chat', state: 'failed', error: 'Error: no panel\n    at x.js:1:1' },
        { title: 'later', state: 'pending' },
      ],
    };
    assert.deepEqual(suiteFailures(results), ['opens the chat: Error: no panel']);
    assert.deepEqual(suiteFailures({}), []);
    assert.deepEqual(suiteFailures({ tests: [], crashed: 'TypeError: x is undefined\n    at y' }), [
      'the suite crashed: TypeError: x is undefined',
    ]);
  });
});
