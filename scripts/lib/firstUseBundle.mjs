// Splits the extension into two bundles: dist/extension.js, which the extension host compiles and
// runs at activation, and dist/first-use.js, which holds the modules DocChat loads at first use
// (each behind `atFirstUse(() => require('…'))`: the API clients, their schemas, zod, and the
// features' code that runs only when used: the chat panel, the search quick pick, a folder sync's
// steps) and what only they import. Activation then no longer parses them.
//
// The modules both sides import exist once: extension.js hands its own instances to first-use.js
// when it loads it (the error classes that `instanceof` checks, @vscode/l10n holding the
// translations activate() gave it, the limits). esbuild splits shared code only in ES module
// output, and extension.js is CommonJS, hence this hand-over. test/unit/bundles.test.ts checks
// that no module is in both bundles.
import path from 'node:path';

/** The modules required at first use, relative to the repository; the bundle's entries. */
export const FIRST_USE = [
  'src/api/documents/client.ts',
  'src/api/documents/schemas.ts',
  'src/api/gateway/client.ts',
  'src/api/lifetime/client.ts',
  'src/services/modelServers.ts',
  'src/features/chat/contextArgument.ts',
  'src/features/chat/conversationStore.ts',
  'src/chatCore/protocol.ts',
  'src/features/chat/panelFeature.ts',
  'src/features/search/searchPicker.ts',
  'src/features/sync/syncOnce.ts',
];

/** Modules of extension.js that first-use.js imports too: first-use.js receives them from it. */
export const SHARED = [
  'src/api/http/validate.ts',
  'src/api/http/errors.ts',
  'src/api/http/clock.ts',
  'src/api/gateway/models.ts',
  'src/api/gateway/limits.ts',
  'src/api/documents/limits.ts',
  'src/services/modelServerMemory.ts',
  'src/common/constants.ts',
  'src/common/conversionChoice.ts',
  'src/common/atFirstUse.ts',
  'src/common/lifecycle.ts',
  'src/common/terms.ts',
  'src/common/timers.ts',
  'src/common/shownUrl.ts',
  'src/services/commands.ts',
  'src/services/errors.ts',
  'src/services/settingsModel.ts',
  'src/chatCore/citations.ts',
  'src/chatCore/grounding.ts',
  'src/chatCore/links.ts',
  'src/chatCore/modelCatalog.ts',
  'src/chatCore/passageBudget.ts',
  'src/chatCore/promptBuilder.ts',
  'src/chatCore/queryTerms.ts',
  'src/chatCore/relevance.ts',
  'src/chatCore/resultShaping.ts',
  'src/chatCore/searchQuery.ts',
  'src/chatCore/snippet.ts',
  'src/chatCore/storeMerge.ts',
  'src/features/chat/chatErrors.ts',
  'src/features/search/searchQuickPick.ts',
  'src/features/stores/index.ts',
  'src/features/sync/controller.ts',
  'src/features/sync/journal.ts',
  'src/features/sync/syncMetadata.ts',
  'src/features/walkthrough/index.ts',
  'node_modules/@vscode/l10n/dist/main.js',
];

/** The file extension.js requires, next to it in dist/. */
const BUNDLE = './first-use.js';
const NAMESPACE = 'docchat-first-use';
/** Marks the plugin's own `build.resolve` calls, which it must not intercept again. */
const RESOLVING = Symbol('resolving');

const relative = (root, file) => path.relative(root, file).split(path.sep).join('/');

/** Resolves an import as esbuild would without this plugin; the path relative to the repository. */
async function resolveInRepository(build, root, args) {
  const result = await build.resolve(args.path, {
    kind: args.kind,
    importer: args.importer,
    resolveDir: args.resolveDir,
    pluginData: RESOLVING,
  });
  if (result.errors.length > 0 || result.external) return undefined;
  return relative(root, result.path);
}

/**
 * For dist/extension.js: a `require` of one of DocChat's own modules loads it from first-use.js,
 * handing over the shared modules at the first such call. A `require` of a module missing from
 * FIRST_USE fails the build.
 * @param {string} root the repository
 * @returns {import('esbuild').Plugin}
 */
export function requireFromFirstUse(root) {
  const loader = [
    ...SHARED.map((file, i) => `import * as shared${i} from ${JSON.stringify(path.join(root, file))};`),
    'let bundle;',
    'export function firstUse(name) {',
    `  bundle ??= require(${JSON.stringify(BUNDLE)}).load({`,
    ...SHARED.map((file, i) => `    ${JSON.stringify(file)}: shared${i},`),
    '  });',
    '  return bundle[name]();',
    '}',
  ].join('\n');
  return {
    name: 'require-from-first-use',
    setup(build) {
      build.onResolve({ filter: /^loader$/, namespace: NAMESPACE }, () => ({ path: 'loader', namespace: NAMESPACE }));
      build.onResolve({ filter: /^\.\/first-use\.js$/, namespace: NAMESPACE }, () => ({ path: BUNDLE, external: true }));
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.kind !== 'require-call' || args.pluginData === RESOLVING) return undefined;
        const file = await resolveInRepository(build, root, args);
        if (file === undefined || !file.startsWith('src/')) return undefined;
        if (!FIRST_USE.includes(file)) {
          return { errors: [{ text: `${file} is required at first use but FIRST_USE (scripts/lib/firstUseBundle.mjs) does not list it` }] };
        }
        return { path: file, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: args.path === 'loader' ? loader : `module.exports = require('loader').firstUse(${JSON.stringify(args.path)});`,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/**
 * For dist/first-use.js: its entry exports `load(shared)`, which takes extension.js's shared
 * modules and returns a loader per FIRST_USE module; an import of a SHARED module reads what
 * extension.js handed over.
 * @param {string} root the repository
 * @returns {import('esbuild').Plugin}
 */
export function firstUseEntry(root) {
  const entry = [
    "import { provide } from 'provided';",
    'export function load(shared) {',
    '  provide(shared);',
    '  return {',
    ...FIRST_USE.map((file) => `    ${JSON.stringify(file)}: () => require(${JSON.stringify(path.join(root, file))}),`),
    '  };',
    '}',
  ].join('\n');
  const provided =
    'let shared;\nexport const provide = (modules) => { shared = modules; };\nexport const provided = (file) => shared[file];';
  return {
    name: 'first-use-entry',
    setup(build) {
      build.onResolve({ filter: /^docchat-first-use$/ }, () => ({ path: 'entry', namespace: NAMESPACE }));
      build.onResolve({ filter: /^provided$/, namespace: NAMESPACE }, () => ({ path: 'provided', namespace: NAMESPACE }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === RESOLVING || args.kind === 'entry-point') return undefined;
        const file = await resolveInRepository(build, root, args);
        return file !== undefined && SHARED.includes(file) ? { path: file, namespace: NAMESPACE } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        if (args.path === 'entry' || args.path === 'provided') {
          return { contents: args.path === 'entry' ? entry : provided, resolveDir: root, loader: 'js' };
        }
        return { contents: `module.exports = require('provided').provided(${JSON.stringify(args.path)});`, resolveDir: root, loader: 'js' };
      });
    },
  };
}
