#!/usr/bin/env node
// `npm run mutation`: how much the unit tests can see, measured by StrykerJS (stryker.config.mjs)
// over the modules where an unnoticed break is dangerous or loses data, one module group at a
// time, each against the mocha specs meant to see it. Incremental: a rerun tests only the mutants
// whose code or tests changed (reports/mutation/<group>.incremental.json), so it is short. Prints
// the score of each group and every surviving mutant. Not part of `npm test`.
//
//   npm run mutation [-- --group=chatHost,protocol] [--full] [--concurrency=N]
//   npm run mutation -- --named [...]   the breaks written by hand (scripts/namedBreaks.mjs)
// --full forgets the incremental results and tests every mutant again.
// Exits non-zero when a mutant survives in a group, or Stryker fails.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { formatDuration, log, repoRoot } from './lib/common.mjs';

const args = process.argv.slice(2);
if (args.includes('--named')) {
  await import('./namedBreaks.mjs');
} else {
  await runStryker();
}

async function runStryker() {
  const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const { GROUPS } = await import('../stryker.config.mjs');
  /** Security decisions first: the link and command handling, the message validator, the MCP gate. */
  const groups = option('group')?.split(',') ?? Object.keys(GROUPS);
  const unknown = groups.filter((g) => !GROUPS[g]);
  if (unknown.length) {
    console.error(`[docchat] unknown mutation group: ${unknown.join(', ')}; one of ${Object.keys(GROUPS).join(', ')}`);
    process.exit(2);
  }
  const started = Date.now();
  const rows = [];
  let failed = false;
  for (const group of groups) {
    const report = path.join(repoRoot, 'reports/mutation', `${group}.json`);
    if (args.includes('--full')) rmSync(path.join(repoRoot, 'reports/mutation', `${group}.incremental.json`), { force: true });
    const at = Date.now();
    log(`mutation group ${group}: ${GROUPS[group].mutate.join(', ')}`);
    const code = await stryker(group, option('concurrency'));
    if (code !== 0 || !existsSync(report)) {
      failed = true;
      log(`mutation group ${group}: Stryker exited with ${code}`);
      continue;
    }
    const row = summarize(group, JSON.parse(readFileSync(report, 'utf8')));
    rows.push({ ...row, ms: Date.now() - at });
    if (row.survivors.length || row.noCoverage) failed = true;
  }
  console.log('\n| group | mutants | killed | timed out | survived | no coverage | score |\n|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.group} | ${r.total} | ${r.killed} | ${r.timedOut} | ${r.survivors.length} | ${r.noCoverage} | ${r.score}% |`);
  }
  for (const r of rows) for (const s of r.survivors) log(`survived in ${r.group}: ${s}`);
  log(`mutation run done in ${formatDuration(Date.now() - started)}`);
  process.exit(failed ? 1 : 0);
}

function stryker(group, concurrency) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(repoRoot, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run', 'stryker.config.mjs'],
      {
        cwd: repoRoot,
        stdio: 'inherit',
        env: {
          ...process.env,
          DOCCHAT_MUTATION_GROUP: group,
          ...(concurrency ? { DOCCHAT_MUTATION_CONCURRENCY: concurrency } : {}),
        },
      },
    );
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Counts of a mutation-testing-report-schema report, and each survivor as `file:line mutator (replacement)`. */
function summarize(group, report) {
  const mutants = Object.entries(report.files).flatMap(([file, f]) => f.mutants.map((m) => ({ file, ...m })));
  const count = (status) => mutants.filter((m) => m.status === status).length;
  const killed = count('Killed');
  const timedOut = count('Timeout');
  const noCoverage = count('NoCoverage');
  const valid = mutants.filter((m) => !['CompileError', 'RuntimeError', 'Ignored'].includes(m.status)).length;
  const survivors = mutants
    .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
    .map(
      (m) =>
        `${m.file}:${m.location.start.line} ${m.mutatorName} ${m.status === 'NoCoverage' ? '(no test runs it) ' : ''}→ ${JSON.stringify(m.replacement ?? '').slice(0, 80)}`,
    );
  return {
    group,
    total: valid,
    killed,
    timedOut,
    noCoverage,
    survivors,
    score: valid ? Math.floor((1000 * (killed + timedOut)) / valid) / 10 : 0,
  };
}
