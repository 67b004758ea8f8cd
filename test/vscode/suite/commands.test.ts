import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CommandId } from '../../../src/common/constants';
import { registerCommand } from '../../../src/services/commands';
import type { ErrorReporter, ReportOptions } from '../../../src/services/errors';
import { eventually } from './documents/fixtures';

const EXTENSION_ID = 'docchat.docchat';

interface Manifest {
  contributes: { commands?: Array<{ command: string }>; views?: Record<string, Array<{ id: string }>> };
}

describe('DocChat commands', () => {
  let manifest: Manifest;
  let registered: Set<string>;

  before(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not installed`);
    await extension.activate();
    manifest = extension.packageJSON;
    registered = new Set(await vscode.commands.getCommands(true));
  });

  it('registers every command contributed in package.json', () => {
    const contributed = (manifest.contributes.commands ?? []).map((c) => c.command);
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const missing = contributed.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `contributed but not registered after activation: ${missing.join(', ')}`);
  });

  it('contributes every docchat command it registers', () => {
    const contributed = new Set((manifest.contributes.commands ?? []).map((c) => c.command));
    // VS Code itself registers `<viewId>.focus`, `<viewId>.resetViewLocation`, … for each view.
    const viewIds = Object.values(manifest.contributes.views ?? {})
      .flat()
      .map((v) => v.id);
    const isViewCommand = (id: string) => viewIds.some((view) => id.startsWith(`${view}.`));
    const extra = [...registered].filter((id) => id.startsWith('docchat.') && !contributed.has(id) && !isViewCommand(id));
    assert.deepEqual(extra, [], `registered but not contributed in package.json: ${extra.join(', ')}`);
  });

  it('shows the DocChat output channel', async () => {
    // An output channel on screen is a text editor of the `output` scheme, named after the extension
    // and channel; VS Code 1.139 adds `.log` to the name of a log channel.
    const channelPath = new RegExp(`^${EXTENSION_ID.replace(/\./g, '\\.')}\\.DocChat(\\.log)?$`);
    const docChatOutput = () =>
      vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'output' && channelPath.test(e.document.uri.path));
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await eventually(() => (docChatOutput() ? undefined : true), 'the panel to close');
    await vscode.commands.executeCommand('docchat.showOutput');
    const editor = await eventually(docChatOutput, 'the DocChat output channel on screen').catch((error: Error) => {
      const shown = vscode.window.visibleTextEditors.map((e) => e.document.uri.toString());
      throw new Error(`${error.message}; visible editors: ${shown.join(', ') || 'none'}`);
    });
    assert.ok(!editor.viewColumn, 'shown in the panel, not as an editor tab');
  });
});

describe('registerCommand: one way to run a command and report its error', () => {
  interface Report {
    error: unknown;
    what: string;
    options: ReportOptions;
  }

  function recorder(): { reports: Report[]; errors: ErrorReporter } {
    const reports: Report[] = [];
    const errors = { report: (error: unknown, what: string, options: ReportOptions = {}) => reports.push({ error, what, options }) };
    return { reports, errors: errors as unknown as ErrorReporter };
  }

  it('reports a failure once, for the right service, with a Retry that runs the command again with its arguments', async () => {
    const { reports, errors } = recorder();
    const calls: unknown[][] = [];
    const id = 'docchatTest.failing' as CommandId;
    const registration = registerCommand(
      errors,
      id,
      'do the test thing',
      (...args: unknown[]) => {
        calls.push(args);
        throw new Error('it broke');
      },
      { service: 'gateway' },
    );
    try {
      await vscode.commands.executeCommand(id, 'a', 2);
      assert.equal(reports.length, 1, 'reported once');
      assert.equal(reports[0]!.what, 'do the test thing');
      assert.match(String(reports[0]!.error), /it broke/);
      assert.equal(reports[0]!.options.service, 'gateway');
      assert.ok(reports[0]!.options.retry, 'Retry is offered');
      await reports[0]!.options.retry!();
      assert.deepEqual(
        calls,
        [
          ['a', 2],
          ['a', 2],
        ],
        'Retry ran the command again with the same arguments',
      );
      assert.equal(reports.length, 2, 'a failing retry is reported again');
    } finally {
      registration.dispose();
    }
  });

  it('offers no Retry when the command says so, and reports nothing when it succeeds', async () => {
    const { reports, errors } = recorder();
    const failing = registerCommand(errors, 'docchatTest.noRetry' as CommandId, 'fail', () => Promise.reject(new Error('no')), {
      retry: false,
    });
    const working = registerCommand(errors, 'docchatTest.works' as CommandId, 'work', () => 42);
    try {
      await vscode.commands.executeCommand('docchatTest.noRetry');
      assert.equal(reports.length, 1);
      assert.equal(reports[0]!.options.retry, undefined);
      await vscode.commands.executeCommand('docchatTest.works');
      assert.equal(reports.length, 1, 'a command that works reports nothing');
    } finally {
      failing.dispose();
      working.dispose();
    }
  });
});
