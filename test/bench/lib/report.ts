/**
 * What every benchmark entry point produces: tables and notes as JSON, written to the file named
 * by `--out` (scripts/bench.mjs turns them into markdown). Progress goes to stderr.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Table {
  caption: string;
  columns: string[];
  rows: (string | number)[][];
}

export interface BenchResult {
  id: string;
  title: string;
  /** The goal as the issue states it. */
  goal: string;
  /** How it was measured: one or two sentences. */
  method: string;
  tables: Table[];
  /** Findings: misses, their cause and what would close them. */
  notes: string[];
}

export function progress(message: string): void {
  process.stderr.write(`  · ${message}\n`);
}

function outFile(): string | undefined {
  const index = process.argv.indexOf('--out');
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/**
 * Runs a benchmark entry point and writes its result where the runner asked. A benchmark that
 * cannot run here (its data is missing) resolves undefined and writes nothing: it is skipped.
 */
export function main(run: () => Promise<BenchResult | undefined>): void {
  run()
    .then((result) => {
      if (!result) process.exit(0);
      const file = outFile();
      const json = JSON.stringify(result, null, 2);
      if (file) {
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, json);
      } else {
        process.stdout.write(`${json}\n`);
      }
      process.exit(0);
    })
    .catch((error) => {
      process.stderr.write(`${(error as Error)?.stack ?? error}\n`);
      process.exit(1);
    });
}
