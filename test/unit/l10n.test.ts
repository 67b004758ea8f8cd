/**
 * Every sentence DocChat shows can be translated: the extension words its messages with
 * `vscode.l10n.t('Whole sentence with {0}.', value)`, the chat webview with `l10n.t` from
 * `@vscode/l10n`, and `l10n/bundle.l10n.json` (what translators start from) holds exactly the
 * strings of the sources. A bare English literal where the user reads it, or a bundle not
 * re-exported with `npm run l10n`, fails here.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

/** The folders whose code talks to the user (src/api, src/backend, src/chatCore keep English for logs and the wire). */
const SHOWN_BY = ['src/features', 'src/services', 'src/extension.ts', 'media/chat'];

/** Calls whose every string argument is shown as a notification. */
const MESSAGE_CALLS = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage']);
/** Object or assignment properties the user reads (quick picks, input boxes, progress, tree items, status bar). */
const SHOWN_PROPERTIES = new Set([
  'title',
  'placeholder',
  'placeHolder',
  'prompt',
  'tooltip',
  'validationMessage',
  'message',
  'ariaLabel',
  'accessibilityInformation',
  'aria-label',
  'textContent',
  'text',
  'label',
  'description',
  'detail',
]);
/** Wrappers that put their argument in front of the user. */
const SHOWN_ARGUMENTS = new Map<string, number[]>(
  Object.entries({
    report: [1], // errors.report(error, sentence)
    warn: [0],
    registerCommand: [2], // registerCommand(errors, id, sentence, body)
    markdown: [0], // a chat participant's stream.markdown(...)
    progress: [0], // a chat participant's stream.progress(...)
    setStatusMessage: [0],
    // the chat webview's buttons, options and spoken endings
    textButton: [1],
    iconButton: [1],
    option: [1],
    endAnnouncement: [0],
    // quick pick status rows, input validation, tree items
    statusItem: [1, 2],
    problem: [0],
    TreeItem: [0],
    MessageNode: [1],
  }),
);

function sourceFiles(): string[] {
  const out: string[] = [];
  for (const entry of SHOWN_BY) {
    const full = path.join(ROOT, entry);
    if (entry.endsWith('.ts')) {
      out.push(full);
      continue;
    }
    for (const f of readdirSync(full, { recursive: true, encoding: 'utf8' })) {
      if (f.endsWith('.ts') && !f.endsWith('.d.ts')) out.push(path.join(full, f));
    }
  }
  return out;
}

/** True when the text has words to translate: codicons (`$(sync~spin)`), the product name, numbers and punctuation do not count. */
function hasWords(text: string): boolean {
  return /[A-Za-z]{2,}/.test(text.replace(/\$\([\w~-]+\)/g, '').replace(/\bDocChat\b/g, ''));
}

/** The English a literal shows, or undefined when the expression is not a literal with words. */
function bareText(node: ts.Expression): string | undefined {
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) node = node.expression;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return hasWords(node.text) ? node.text : undefined;
  if (ts.isTemplateExpression(node)) {
    const parts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('{}');
    return hasWords(parts) ? parts : undefined;
  }
  if (ts.isConditionalExpression(node)) return bareText(node.whenTrue) ?? bareText(node.whenFalse);
  const joins = [ts.SyntaxKind.PlusToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken];
  if (ts.isBinaryExpression(node) && joins.includes(node.operatorToken.kind)) {
    return bareText(node.left) ?? bareText(node.right);
  }
  return undefined;
}

function calleeName(call: ts.CallExpression | ts.NewExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

function propertyName(name: ts.PropertyName | ts.MemberName): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;
}

/** `file:line: text` for every literal the user would read untranslated. */
function bareMessages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const flag = (node: ts.Node, english: string | undefined): void => {
    if (english === undefined) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    found.push(`${path.relative(ROOT, file)}:${line + 1}: ${JSON.stringify(english)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const name = calleeName(node);
      const args = node.arguments ?? ts.factory.createNodeArray<ts.Expression>();
      if (name && MESSAGE_CALLS.has(name)) args.forEach((a) => flag(a, bareText(a)));
      const receiver = ts.isPropertyAccessExpression(node.expression) ? node.expression.expression.getText(source) : '';
      // errors.report / errors.warn are shown; a logger's report or warn is not.
      const logged = (name === 'report' || name === 'warn') && !/errors$/.test(receiver) && !/^progress$/.test(receiver);
      for (const index of (name && !logged && SHOWN_ARGUMENTS.get(name)) || []) {
        const arg = args[index];
        if (arg) flag(arg, bareText(arg));
      }
    } else if (ts.isPropertyAssignment(node)) {
      const name = propertyName(node.name);
      // `{ message: 'message' }` is an identifier (a context value), not a sentence.
      const same = ts.isStringLiteral(node.initializer) && node.initializer.text === name;
      if (name && SHOWN_PROPERTIES.has(name) && !same) flag(node.initializer, bareText(node.initializer));
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      SHOWN_PROPERTIES.has(node.left.name.text)
    ) {
      flag(node.right, bareText(node.right));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every `l10n.t` key of a bundle. */
function readBundle(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

describe('l10n', function () {
  this.timeout(120_000);

  it('shows no bare English literal in a message, picker, progress title, tooltip or error sentence', () => {
    const bare = sourceFiles().flatMap(bareMessages);
    assert.deepEqual(bare, [], `wrap these in vscode.l10n.t (extension) or l10n.t (webview) as whole sentences:\n${bare.join('\n')}`);
  });

  it('notices a bare message (the check itself works)', () => {
    const probe = path.join(mkdtempSync(path.join(tmpdir(), 'docchat-l10n-')), 'probe.ts');
    try {
      writeFileSync(
        probe,
        [
          "void vscode.window.showWarningMessage('Something went wrong.');",
          "void vscode.window.showWarningMessage(vscode.l10n.t('Something went wrong.'));",
          'quickPick.placeholder = `Search ${name}`;',
          "errors.report(error, vscode.l10n.t('DocChat: could not search.'));",
          "registerCommand(errors, Commands.search, 'search', run);",
        ].join('\n'),
      );
      assert.deepEqual(
        bareMessages(probe).map((l) => l.replace(/^.*probe\.ts:/, '')),
        ['1: "Something went wrong."', '3: "Search {}"', '5: "search"'],
      );
    } finally {
      rmSync(path.dirname(probe), { recursive: true, force: true });
    }
  });

  it('keeps l10n/bundle.l10n.json in step with the sources (run `npm run l10n`)', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'docchat-l10n-'));
    try {
      execFileSync(process.execPath, [require.resolve('@vscode/l10n-dev/dist/cli.js'), 'export', '--outDir', out, 'src', 'media/chat'], {
        cwd: ROOT,
        stdio: 'pipe',
      });
      const fresh = readBundle(path.join(out, 'bundle.l10n.json'));
      const committed = readBundle(path.join(ROOT, 'l10n/bundle.l10n.json'));
      assert.ok(Object.keys(fresh).length > 50, `only ${Object.keys(fresh).length} strings exported`);
      assert.deepEqual(committed, fresh, 'l10n/bundle.l10n.json is out of date: run `npm run l10n`');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('declares the bundle folder in package.json and packages it', async () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { l10n?: string };
    assert.equal(manifest.l10n, './l10n');
    const vsce = (await import('@vscode/vsce')) as { listFiles(o: { cwd: string; dependencies: boolean }): Promise<string[]> };
    const packaged = new Set(await vsce.listFiles({ cwd: ROOT, dependencies: false }));
    assert.ok(packaged.has('l10n/bundle.l10n.json'), 'l10n/bundle.l10n.json is left out of the .vsix');
  });
});
