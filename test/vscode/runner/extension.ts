import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { runSuite, type SuiteFile } from './runSuite';

// Body of a tiny extension the code-server harness installs next to DocChat. When the harness sets
// DOCCHAT_EXTHOST_RESULTS, it runs the extension-host suite in this extension host and writes the
// results there as JSON; otherwise it does nothing.
export async function activateRunner(files: SuiteFile[], context?: vscode.ExtensionContext): Promise<void> {
  const resultsFile = process.env.DOCCHAT_EXTHOST_RESULTS;
  if (!resultsFile) return;
  // Where this profile keeps its files (tests that check no secret was written look there).
  if (context) process.env.DOCCHAT_EXTHOST_GLOBAL_STORAGE = context.globalStorageUri.fsPath;
  let json: string;
  try {
    json = JSON.stringify(await runSuite(files, vscode.version), null, 2);
  } catch (error) {
    json = JSON.stringify({ vscodeVersion: vscode.version, crashed: String((error as Error)?.stack ?? error) });
  }
  mkdirSync(path.dirname(resultsFile), { recursive: true });
  // Written under another name first so the harness never reads a half-written file.
  writeFileSync(`${resultsFile}.partial`, json);
  renameSync(`${resultsFile}.partial`, resultsFile);
}
