import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { commandTitle, launchVSCode, manifest, newErrors, pollUntil, repoRoot, runCommand, type VSCodeSession } from '../support/harness';

// What someone who has never seen DocChat meets in the first minutes, from the install `npm start`
// makes (the build copied as the .vsix's files), not only from the .vsix the other tests install.

/** `%key%` placeholders of package.nls.json left untranslated anywhere in the workbench's DOM. */
async function untranslatedKeys(page: Page): Promise<string[]> {
  const keys = new Set(Object.keys(JSON.parse(readFileSync(path.join(repoRoot, 'package.nls.json'), 'utf8'))));
  const found = await page.evaluate(() => {
    const texts: string[] = [document.body.innerText];
    for (const element of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
      for (const attribute of ['aria-label', 'title', 'placeholder']) texts.push(element.getAttribute(attribute) ?? '');
    }
    return [...new Set(texts.join('\n').match(/%[\w.-]+%/g) ?? [])];
  });
  return found.filter((k) => keys.has(k.slice(1, -1)));
}

describe('a newcomer in npm start (e2e)', function () {
  let session: VSCodeSession | undefined;

  afterEach(async function () {
    const unexpected = session ? newErrors(session) : [];
    if (session && this.currentTest?.state === 'failed') {
      await session.screenshot('failure').catch(() => undefined);
      console.log(`DocChat output channel:\n${session.outputChannel()}`);
    }
    await session?.close();
    session = undefined;
    if (this.currentTest?.state === 'passed' && unexpected.length > 0) {
      throw new Error(`"${this.currentTest.title}" left errors behind:\n${unexpected.join('\n')}`);
    }
  });

  it('shows real text, no %key%, in the activity bar, the palette and the walkthrough', async function () {
    session = await launchVSCode({ name: this.test!.fullTitle(), installAsNpmStart: true, useDocChat: false });
    const { page } = session;
    const activityTitle = manifest.contributes.viewsContainers.activitybar[0].title as string;
    // DocChat's container, titled by its real name or by its untranslated key.
    const container = page.locator(
      `.part.activitybar .action-label[aria-label^="${activityTitle}"], .part.activitybar .action-label[aria-label*="%viewsContainers."]`,
    );
    await container.first().waitFor({ timeout: 30_000 });
    assert.deepEqual(await untranslatedKeys(page), [], 'the activity bar shows %key% strings');
    await session.openView();
    await session.screenshot('view');
    assert.deepEqual(await untranslatedKeys(page), [], 'the view shows %key% strings');

    // The palette lists DocChat's commands by their real titles.
    const openChat = commandTitle('docchat.chat.open');
    await page.locator('.monaco-workbench').focus();
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input.input').fill('>docchat');
    const rows = page.locator('.quick-input-widget .monaco-list-row .label-name');
    await rows.first().waitFor({ timeout: 15_000 });
    await session.screenshot('palette');
    assert.deepEqual(await untranslatedKeys(page), [], 'the palette shows %key% strings');
    await page.locator('.quick-input-widget input.input').fill(`>${openChat}`);
    await rows.filter({ hasText: openChat }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Escape');

    await runCommand(page, commandTitle('docchat.openWalkthrough'));
    const walkthrough = page.locator('.gettingStartedContainer');
    const firstStep = manifest.contributes.walkthroughs[0].steps[0].title as string;
    await walkthrough.locator('.getting-started-step', { hasText: firstStep }).first().waitFor({ timeout: 30_000 });
    // A step's buttons come from its description's command links, which only the real text has.
    await pollUntil(
      () => walkthrough.locator('.getting-started-step.expanded .monaco-button').count(),
      (buttons) => buttons > 0,
      { what: 'the expanded walkthrough step shows its buttons' },
    );
    await session.screenshot('walkthrough');
    assert.deepEqual(await untranslatedKeys(page), [], 'the workbench shows %key% strings');
  });
});
