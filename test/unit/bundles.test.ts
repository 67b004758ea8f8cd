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
  /** The bundle's JavaScript. */
  text: string;
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
  const metafile = result.metafile as Metafile;
  const output = Object.entries(metafile.outputs).find(([file, o]) => o.entryPoint !== undefined && file.endsWith('.js'))![1];
  const inputs = Object.keys(output.inputs).filter((f) => output.inputs[f]!.bytesInOutput > 0);
  const [file] = Object.entries(metafile.outputs).find(([, o]) => o === output)!;
  const text = result.outputFiles!.find((f) => f.path === path.resolve(ROOT, file))!.text;
  return { inputs, bytes: output.bytes, text };
}

const matching = (bundle: Bundle, pattern: RegExp) => bundle.inputs.filter((f) => pattern.test(f));

/** The API clients and their schemas (zod's users in src/api). */
const API_CLIENTS = /^src\/api\/(documents|gateway|lifetime)\/(client|schemas|stream)\.ts$/;

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

  it('requires the vscode API once, so its modules share one namespace object', async () => {
    const extension = await build('extension');
    assert.ok(matching(extension, /^src\/features\//).length > 20, 'the metafile names the feature modules, which import vscode');
    // Each namespace made from the API object copies its several hundred exports.
    assert.equal(extension.text.match(/require\("vscode"\)/g)?.length, 1, 'require("vscode") calls in extension.js');
  });

  it('leaves zod, the API clients, their schemas and undici out of extension.js, which activation loads', async () => {
    const extension = await build('extension');
    assert.ok(matching(extension, /^src\/features\/chat\/index\.ts$/).length === 1, 'the metafile names the feature modules');
    assert.deepEqual(matching(extension, /node_modules\/zod\//), [], 'zod in extension.js');
    assert.deepEqual(matching(extension, API_CLIENTS), [], 'API clients or schemas in extension.js');
    assert.deepEqual(matching(extension, /node_modules\/(undici|eventsource-parser)\//), [], 'HTTP libraries in extension.js');
    assert.deepEqual(
      matching(
        extension,
        /^src\/(chatCore\/(protocol|conversation)|features\/chat\/(conversationStore|contextArgument)|services\/modelServers)\.ts$/,
      ),
      [],
      'other zod schemas in extension.js',
    );
  });

  it('puts them in first-use.js, which holds no module of extension.js: those it shares exist once', async () => {
    const [extension, firstUse] = [await build('extension'), await build('first-use')];
    assert.ok(matching(firstUse, API_CLIENTS).length >= 6, 'the metafile names the API clients and schemas');
    assert.ok(matching(firstUse, /node_modules\/zod\//).length > 0, 'the metafile names zod');
    // A second copy of a shared module would be a second ApiError class (`instanceof` fails across
    // them) or a second @vscode/l10n without the translations activate() handed to the first.
    // The `vscode` module is the extension host's one API object; each bundle makes one namespace of it.
    assert.deepEqual(
      firstUse.inputs.filter((f) => extension.inputs.includes(f) && f !== 'vscode-namespace-once:vscode'),
      [],
      'modules in both bundles (add them to SHARED in scripts/lib/firstUseBundle.mjs)',
    );
    assert.ok(extension.inputs.includes('src/api/http/errors.ts'), 'extension.js holds the error classes first-use.js receives');
    assert.ok(extension.inputs.includes('node_modules/@vscode/l10n/dist/main.js'), 'extension.js holds @vscode/l10n');
    assert.deepEqual(matching(firstUse, /node_modules\/undici\//), [], 'undici in first-use.js (it is undici.js)');
    // `import * as z from 'zod'` lets esbuild leave out what is not used; `import { z }` takes
    // zod's whole namespace object, its forty-odd translations included (about 250 KB).
    assert.deepEqual(
      matching(firstUse, /node_modules\/zod\/v4\/locales\/(?!en\.js$|index\.js$)/),
      [],
      "zod's translations in first-use.js",
    );
  });

  it("leaves the features' code that runs on use to first-use.js: the commands registered at activation load it", async () => {
    const [extension, firstUse] = [await build('extension'), await build('first-use')];
    // The chat panel (controller, session, answers, webview), the search quick pick and its store search, a folder sync's steps.
    const moved =
      /^src\/features\/(chat\/(panelFeature|chatController|chatSession|chatPanel|chatPage|answerGenerator|answerStream|deltaCoalescer|storeCatalog|accessibleView|webviewHtml)|search\/(searchPicker|searchController|storeSearch)|sync\/(syncOnce|act|confirm|finish|planner|planStep|records|runner|scanner|eta|syncMessages))\.ts$/;
    assert.ok(
      ['chat', 'search', 'sync'].every((feature) => extension.inputs.includes(`src/features/${feature}/index.ts`)),
      'extension.js registers the features',
    );
    assert.deepEqual(matching(extension, moved), [], "features' modules in extension.js that run only when used");
    assert.equal(matching(firstUse, moved).length, 25, "the features' modules in first-use.js");
    // The sync's .gitignore rules are read by its scan only.
    assert.deepEqual(matching(extension, /node_modules\/ignore\//), [], 'ignore in extension.js');
  });
});
