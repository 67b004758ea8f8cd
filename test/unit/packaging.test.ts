/**
 * The .vsix holds every bundle the build writes: a file left out by `.vscodeignore` works in a
 * development copy of DocChat and breaks in the installed extension. (npm test builds before the
 * unit layer runs; alone, run `npm run build` first.)
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

describe('packaging', function () {
  this.timeout(120_000);

  it('puts every bundle of dist/ (and its webview assets) in the .vsix', async () => {
    const dist = path.join(ROOT, 'dist');
    assert.ok(existsSync(path.join(dist, 'extension.js')), 'dist/ is not built: run `npm run build` first');
    const built = readdirSync(dist, { recursive: true, encoding: 'utf8' })
      .map((f) => `dist/${f.split(path.sep).join('/')}`)
      // .wasm and .gz: the OCR engine and its language data (dist/ocr/).
      .filter((f) => /\.(js|css|ttf|wasm|gz)$/.test(f));
    assert.ok(built.includes('dist/backend-cli.js') && built.includes('dist/webview/chat.js'), `built: ${built.join(', ')}`);
    const vsce = (await import('@vscode/vsce')) as { listFiles(o: { cwd: string; dependencies: boolean }): Promise<string[]> };
    const packaged = new Set(await vsce.listFiles({ cwd: ROOT, dependencies: false }));
    assert.deepEqual(
      built.filter((f) => !packaged.has(f)),
      [],
      'built but left out of the package by .vscodeignore',
    );
    assert.ok(packaged.has('package.json') && packaged.has('package.nls.json'), 'the manifest and its strings are packaged');
  });

  it('puts every file package.json refers to (walkthrough media, icons) in the .vsix', async () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const referenced: string[] = [
      ...(manifest.contributes.walkthroughs ?? []).flatMap((w: { steps: Array<{ media: { markdown?: string; image?: string } }> }) =>
        w.steps.map((s) => s.media.markdown ?? s.media.image ?? ''),
      ),
      ...(manifest.contributes.viewsContainers?.activitybar ?? []).map((c: { icon: string }) => c.icon),
    ].filter(Boolean);
    assert.ok(
      referenced.some((f) => f.startsWith('media/walkthrough/')),
      `referenced: ${referenced.join(', ')}`,
    );
    const vsce = (await import('@vscode/vsce')) as { listFiles(o: { cwd: string; dependencies: boolean }): Promise<string[]> };
    const packaged = new Set(await vsce.listFiles({ cwd: ROOT, dependencies: false }));
    assert.deepEqual(
      referenced.filter((f) => !existsSync(path.join(ROOT, f)) || !packaged.has(f)),
      [],
      'referenced but missing or not packaged',
    );
  });
});
