import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';
const MESSAGE_CALLS = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage']);
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
const SHOWN_ARGUMENTS = new Map<string, number[]>(
  Object.entries({ report: [1], warn: [0], registerCommand: [2], markdown: [0], progress: [0], setStatusMessage: [0] }),
);
const hasWords = (t: string) => /[A-Za-z]{2,}/.test(t.replace(/\$\([\w~-]+\)/g, '').replace(/\bDocChat\b/g, ''));
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  const media = file.startsWith('media/');
  const fn = media ? 'l10n.t' : 'vscode.l10n.t';
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: Array<[number, number, string]> = [];
  const wrap = (node: ts.Expression): void => {
    while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) node = node.expression;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (!hasWords(node.text)) return;
      const lit = ts.isStringLiteral(node) ? node.getText(source) : `'${node.getText(source).slice(1, -1).replace(/'/g, "\\'")}'`;
      edits.push([node.getStart(source), node.getEnd(), `${fn}(${lit})`]);
    } else if (ts.isTemplateExpression(node)) {
      const raw = (t: ts.TemplateLiteralLikeNode) => t.rawText ?? '';
      let s = raw(node.head);
      node.templateSpans.forEach((span, i) => {
        s += `{${i}}` + raw(span.literal);
      });
      if (!hasWords(s)) return;
      s = s.replace(/'/g, "\\'").replace(/\\`/g, '`');
      const args = node.templateSpans.map((sp) => sp.expression.getText(source));
      edits.push([node.getStart(source), node.getEnd(), `${fn}('${s}', ${args.join(', ')})`]);
    } else if (ts.isConditionalExpression(node)) {
      wrap(node.whenTrue);
      wrap(node.whenFalse);
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      wrap(node.left);
      wrap(node.right);
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
      if (name === 't') return;
      if (name && MESSAGE_CALLS.has(name)) node.arguments.forEach(wrap);
      const receiver = ts.isPropertyAccessExpression(callee) ? callee.expression.getText(source) : '';
      const logged = (name === 'report' || name === 'warn') && !/errors$/.test(receiver) && !/^progress$/.test(receiver);
      for (const i of (name && !logged && SHOWN_ARGUMENTS.get(name)) || []) {
        const a = node.arguments[i];
        if (a) wrap(a);
      }
    } else if (ts.isPropertyAssignment(node)) {
      const n = ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) ? node.name.text : undefined;
      const same = ts.isStringLiteral(node.initializer) && node.initializer.text === n;
      if (n && SHOWN_PROPERTIES.has(n) && !same) wrap(node.initializer);
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      SHOWN_PROPERTIES.has(node.left.name.text)
    ) {
      wrap(node.right);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!edits.length) continue;
  edits.sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [s, e, r] of edits) out = out.slice(0, s) + r + out.slice(e);
  if (media && !out.includes("from '@vscode/l10n'")) out = `import * as l10n from '@vscode/l10n';\n` + out;
  if (!media && !/import \* as vscode from 'vscode'/.test(out)) out = `import * as vscode from 'vscode';\n` + out;
  writeFileSync(file, out);
  console.log(file, edits.length);
}
