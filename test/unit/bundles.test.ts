/**
 * What each bundle holds, by module name in esbuild's metafile: the code the extension host
 * evaluates at activation and the script the chat panel loads stay free of what they do not run.
 * Builds the targets of esbuild.mjs in memory (production options, nothing written).
 */
import * as assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';

const ROOT = path.resolve(__dirname, '../..');

interface Bundle {
  /** Input paths, relative to the repository (`node_modules/zod/…`, `src/api/…`). */
  inputs: string[];
  bytes: number;
}

/** Builds one of esbuild.mjs's targets (found by entry name) with a metafile. */
async function build(entry: string): Promise<Bundle> {
  const esbuild = await import('esbuild');
  const { targets } = (await import(pathToFileURL(path.join(ROOT, 'esbuild.mjs')).href)) as { targets: BuildOptions[] };
  const target = targets.find((t) => Object.keys(t.entryPoints as Record<string, string>).includes(entry));
  assert.ok(target, `esbuild.mjs has no entry point named ${entry}`);
  const result = await esbuild.build({
    ...target,
    entryPoints: { [entry]: (target.entryPoints as Record<string, string>)[entry]! },
    minify: true,
    sourcemap: false,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = (result.metafile as Metafile).outputs;
  const output = Object.entries(outputs).find(([file, o]) => o.entryPoint !== undefined && file.endsWith('.js'))![1];
  return { inputs: Object.keys(output.inputs).filter((f) => output.inputs[f]!.bytesInOutput > 0), bytes: output.bytes };
}

const matching = (bundle: Bundle, pattern: RegExp) => bundle.inputs.filter((f) => pattern.test(f));

describe('bundles', function () {
  this.timeout(120_000);

  it('keeps zod, the API clients and the host code out of the chat webview (chat.js)', async () => {
    const chat = await build('chat');
    assert.ok(matching(chat, /^media\/chat\/app\.ts$/).length === 1, 'the metafile names the webview modules');
    assert.deepEqual(matching(chat, /node_modules\/zod\//), [], 'zod in chat.js');
    assert.deepEqual(matching(chat, /node_modules\/(undici|eventsource-parser)\//), [], 'HTTP libraries in chat.js');
    // src/common/terms.ts is plain text handling (no imports) that the chat core's term sets share
    // with the backend's index; every other module of those folders is host code.
    assert.deepEqual(
      matching(chat, /^src\/(features|services|backend|common|workers)\//).filter((f) => f !== 'src/common/terms.ts'),
      [],
      'extension-host code in chat.js',
    );
    assert.deepEqual(matching(chat, /^src\/api\/(?!gateway\/limits\.ts$)/), [], 'API clients or schemas in chat.js');
    assert.deepEqual(matching(chat, /node_modules\/entities\//), [], 'a second HTML entity table in chat.js');
  });

  it('leaves highlight.js to its own webview script, loaded at the first code block', async () => {
    const chat = await build('chat');
    assert.deepEqual(matching(chat, /node_modules\/highlight\.js\//), [], 'highlight.js in chat.js');
    const highlight = await build('highlight');
    assert.ok(matching(highlight, /node_modules\/highlight\.js\/lib\/core\.js$/).length === 1, 'highlight.js is in highlight.js');
  });

  it('keeps undici out of the extension bundle evaluated at activation', async () => {
    const extension = await build('extension');
    assert.ok(matching(extension, /^src\/extension\.ts$/).length === 1, 'the metafile names the extension modules');
    assert.deepEqual(matching(extension, /node_modules\/undici\//), [], 'undici in extension.js');
  });
});
