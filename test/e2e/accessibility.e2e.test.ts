import * as assert from 'node:assert/strict';
import { loadAxe, loadTheme, PanelBrowser, runAxe, THEME_FILES, type AxeFinding } from '../support/a11y/panelPage';
import { PANEL_STATES } from '../support/a11y/panelStates';

// axe-core (WCAG 2.0/2.1 A and AA, best practices) over every state of the chat panel, in VS Code's
// Light+, Dark+, High Contrast Dark and High Contrast Light colours as the real webview gets them.
// Serious and critical findings fail; lesser ones are printed.

describe('Chat panel accessibility (axe-core, four themes)', function () {
  const panels = PanelBrowser.perSuite();

  for (const themeFile of THEME_FILES) {
    it(`has no serious or critical findings in any panel state (${themeFile})`, async () => {
      const theme = loadTheme(themeFile);
      const failures: string[] = [];
      for (const state of PANEL_STATES) {
        const page = await panels().open(theme);
        try {
          await state.show(page);
          await loadAxe(page);
          const findings: AxeFinding[] = await runAxe(page);
          for (const f of findings) {
            const line = `[${themeFile} / ${state.name}] ${f.impact} ${f.id}: ${f.help}\n${f.nodes.map((n) => `    ${n.target} — ${n.summary}`).join('\n')}`;
            if (f.impact === 'serious' || f.impact === 'critical') failures.push(line);
            else process.stderr.write(`  (${line})\n`);
          }
        } finally {
          await page.close();
        }
      }
      assert.deepEqual(failures, [], failures.join('\n'));
    });
  }
});
