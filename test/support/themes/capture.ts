/**
 * Captures what the tested VS Code (`$DOCCHAT_VSCODE`, the newest by default) gives a webview in each theme the accessibility
 * tests check: the `--vscode-*` colour variables (the workbench computes them from the theme and
 * the colour registry's defaults), `--text-link-decoration`, the body classes and VS Code's default
 * webview styles. The accessibility test renders the chat panel with exactly these, so it checks
 * contrast against the colours users get, without starting VS Code.
 *
 *   node esbuild.mjs && npx tsx test/support/themes/capture.ts
 *
 * writes test/fixtures/themes/<theme>.json. Re-run it when the VS Code version moves.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { chatWebviewFrame, launchVSCode, repoRoot } from '../harness';
import { vscodeTarget } from '../harness/paths';

export const THEMES = [
  { file: 'light-plus', name: 'Default Light+' },
  { file: 'dark-plus', name: 'Default Dark+' },
  { file: 'hc-dark', name: 'Default High Contrast' },
  { file: 'hc-light', name: 'Default High Contrast Light' },
];

async function main(): Promise<void> {
  for (const theme of THEMES) {
    const session = await launchVSCode({ name: `theme capture ${theme.file}`, settings: { 'workbench.colorTheme': theme.name } });
    try {
      // The extension's commands reach the palette a little after the workbench shows.
      for (let attempt = 1; ; attempt++) {
        try {
          await session.runCommand('DocChat: Open Chat');
          break;
        } catch (error) {
          if (attempt >= 10) throw error;
        }
      }
      const frame = await chatWebviewFrame(session.page, 60_000);
      const captured = await frame.evaluate(() => {
        const style = document.documentElement.style;
        const variables: Record<string, string> = {};
        for (let i = 0; i < style.length; i++) {
          const name = style[i]!;
          if (name.startsWith('--')) variables[name] = style.getPropertyValue(name).trim();
        }
        return {
          bodyClasses: [...document.body.classList],
          variables,
          defaultStyles: document.getElementById('_defaultStyles')?.textContent ?? '',
        };
      });
      if (!Object.keys(captured.variables).some((v) => v.startsWith('--vscode-editor-background'))) {
        throw new Error(`no theme variables in the webview for ${theme.name}`);
      }
      const out = path.join(repoRoot, 'test/fixtures/themes', `${theme.file}.json`);
      writeFileSync(
        out,
        `${JSON.stringify({ theme: theme.name, vscode: `${vscodeTarget().vscode} (code-server ${vscodeTarget().codeServer})`, ...captured }, null, 1)}\n`,
      );
      process.stderr.write(`wrote ${out} (${Object.keys(captured.variables).length} variables, body ${captured.bodyClasses.join(' ')})\n`);
    } finally {
      await session.close();
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
