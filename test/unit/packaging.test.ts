/**
 * The .vsix holds every bundle the build writes: a file left out by `.vscodeignore` works in a
 * development copy of DocChat and breaks in the installed extension. And it holds nothing else:
 * every packaged file is loaded by something, as scripts/packageContents.mjs states (and this
 * checks in the loader). (npm test builds before the unit layer runs; alone, run `npm run build`
 * first.)
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OCR_LANGUAGES } from '../../src/common/ocrLanguages';
import { contributedSettings } from '../support/manifestSettings';

const ROOT = path.resolve(__dirname, '../..');

interface PackagedFile {
  file: string;
  loadedBy: string | ((file: string) => string);
  via?: string;
  why: string;
}
interface Contents {
  PACKAGED: PackagedFile[];
  DEVELOPMENT_BUNDLES: { file: string; usedBy: string }[];
}

const contents = (): Promise<Contents> => import(path.join(ROOT, 'scripts/packageContents.mjs')) as Promise<Contents>;

let listing: Promise<string[]> | undefined;
/** What `vsce package` puts in the .vsix (listed once: vsce walks the whole tree). */
function packagedFiles(): Promise<string[]> {
  listing ??= import('@vscode/vsce').then((vsce) =>
    (vsce as { listFiles(o: { cwd: string; dependencies: boolean }): Promise<string[]> }).listFiles({ cwd: ROOT, dependencies: false }),
  );
  return listing;
}

// `*` is any part of a name; `**` followed by a slash, any folders.
function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\*\*\//g, '(?:.*/)?').replace(/\*/g, '[^/]*')}$`);
}

/**
 * The packaged files nothing loads, each with the reason: no line of PACKAGED names it, its loader
 * is not packaged, or the loader does not contain the text that loads it. `read` gives a packaged
 * file's text.
 */
export function unloadedFiles(packaged: readonly string[], rules: readonly PackagedFile[], read: (file: string) => string): string[] {
  const inPackage = new Set(packaged);
  const problems: string[] = [];
  for (const file of packaged) {
    const rule = rules.find((r) => globToRegExp(r.file).test(file));
    if (!rule) {
      problems.push(`${file}: packaged, but no line of scripts/packageContents.mjs says what loads it`);
      continue;
    }
    const loader = typeof rule.loadedBy === 'function' ? rule.loadedBy(file) : rule.loadedBy;
    if (loader === 'VS Code') continue;
    if (!inPackage.has(loader)) {
      problems.push(`${file}: its loader ${loader} is not packaged`);
      continue;
    }
    const via = (rule.via ?? '{name}').replace(/\{path\}/g, file).replace(/\{name\}/g, path.posix.basename(file));
    if (!read(loader).includes(via)) problems.push(`${file}: ${loader} does not contain ${JSON.stringify(via)}`);
  }
  return problems;
}

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
    const packaged = new Set(await packagedFiles());
    const { DEVELOPMENT_BUNDLES } = await contents();
    const developmentOnly = new Set(DEVELOPMENT_BUNDLES.map((b) => b.file));
    assert.deepEqual(
      built.filter((f) => !packaged.has(f) && !developmentOnly.has(f)),
      [],
      'built but left out of the package by .vscodeignore (or list it in DEVELOPMENT_BUNDLES of scripts/packageContents.mjs)',
    );
    assert.deepEqual(
      [...developmentOnly].filter((f) => packaged.has(f)),
      [],
      'a development bundle is packaged',
    );
    assert.ok(packaged.has('package.json') && packaged.has('package.nls.json'), 'the manifest and its strings are packaged');
  });

  it('packages the data of every OCR language the settings offer', async () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const offered = contributedSettings<{ items: { enum: string[] } }>(manifest)['docchat.attach.ocrLanguages']!.items.enum;
    assert.deepEqual(offered, Object.keys(OCR_LANGUAGES), 'the setting offers the shipped languages');
    const packaged = new Set(await packagedFiles());
    assert.deepEqual(
      offered.filter((language) => !packaged.has(`dist/ocr/${language}.traineddata.gz`)),
      [],
      'an OCR language without its data in the package (esbuild.mjs copies it into dist/ocr/)',
    );
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
    const packaged = new Set(await packagedFiles());
    assert.deepEqual(
      referenced.filter((f) => !existsSync(path.join(ROOT, f)) || !packaged.has(f)),
      [],
      'referenced but missing or not packaged',
    );
  });

  it('packages only files that something loads: no unused bundle, no source map', async () => {
    const { PACKAGED } = await contents();
    const packaged = await packagedFiles();
    assert.ok(packaged.includes('dist/extension.js') && packaged.includes('dist/backend-cli.js'), `packaged: ${packaged.join(', ')}`);
    assert.deepEqual(
      unloadedFiles(packaged, PACKAGED, (f) => readFileSync(path.join(ROOT, f), 'utf8')),
      [],
      'packaged but loaded by nothing: leave it out in .vscodeignore, or say what loads it in scripts/packageContents.mjs',
    );
  });

  it('the rule reports a packaged file nothing loads, and a loader that lost its reference', async () => {
    const { PACKAGED } = await contents();
    const packaged = await packagedFiles();
    const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');
    // What the package held before: the in-process backend nothing requires, and source maps.
    assert.deepEqual(unloadedFiles([...packaged, 'dist/backend.js', 'dist/backend.js.map', 'dist/extension.js.map'], PACKAGED, read), [
      'dist/backend.js: packaged, but no line of scripts/packageContents.mjs says what loads it',
      'dist/backend.js.map: packaged, but no line of scripts/packageContents.mjs says what loads it',
      'dist/extension.js.map: packaged, but no line of scripts/packageContents.mjs says what loads it',
    ]);
    // A folder sync that no longer starts the hashing worker: its bundle would be dead weight.
    const withoutWorker = (f: string) => (f === 'dist/first-use.js' ? read(f).split('hash-worker.js').join('hash-w0rker.js') : read(f));
    assert.deepEqual(unloadedFiles(packaged, PACKAGED, withoutWorker), [
      'dist/hash-worker.js: dist/first-use.js does not contain "hash-worker.js"',
    ]);
    // A licence file whose bundle is not packaged.
    assert.deepEqual(unloadedFiles(['dist/backend.js.LEGAL.txt'], PACKAGED, read), [
      'dist/backend.js.LEGAL.txt: its loader dist/backend.js is not packaged',
    ]);
  });
});
