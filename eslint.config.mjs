// @ts-check
// Lint rules that keep DocChat's layers apart and its code in one style. Formatting is Prettier's
// job (`npm run format`); eslint-config-prettier turns off every rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { LAYER_IMPORTS, LAYER_MODULES, VSCODE_LAYERS, WEBVIEW_IMPORTS } from './scripts/lib/layers.mjs';

/** Import patterns for the layers `layer` may not use. */
function forbiddenLayers(layer, allowed) {
  return Object.keys(LAYER_IMPORTS)
    .filter((other) => other !== layer && !allowed.includes(other))
    .map((other) => ({
      group: [`**/${other}`, `**/${other}/**`],
      message: `src/${layer} may import only ${allowed.length ? allowed.map((a) => `src/${a}`).join(', ') : 'itself'} (scripts/lib/layers.mjs).`,
    }));
}

/** Import patterns for the modules of an allowed layer that `layer` may not use (LAYER_MODULES). */
function forbiddenModules(layer) {
  return Object.entries(LAYER_MODULES[layer] ?? {}).map(([other, modules]) => {
    const names = modules.map((m) => m.slice(other.length + 1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
    return {
      // The layer's folder itself, or any module of it but those listed (a folder's index included).
      regex: `(^|/)${other}(/(?!(${names})(/index)?$).*)?$`,
      message: `src/${layer} may import from src/${other} only ${modules.map((m) => `src/${m}`).join(', ')} (scripts/lib/layers.mjs).`,
    };
  });
}

const noVscode = { name: 'vscode', message: 'This layer runs outside VS Code (tests, the CLI, the backend): it must not import vscode.' };

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test-results/**', '.vscode-test/**', '**/*.d.ts', '.stryker-tmp/**', 'reports/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      curly: ['error', 'multi-line'],
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      eqeqeq: ['error', 'smart'],
      'no-console': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // Each folder of src/ imports only the layers its allow-list names (scripts/lib/layers.mjs).
  ...Object.entries(LAYER_IMPORTS).map(([layer, allowed]) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...(VSCODE_LAYERS.includes(layer) ? {} : { paths: [noVscode] }),
          patterns: [
            ...forbiddenLayers(layer, allowed),
            ...forbiddenModules(layer),
            ...(layer === 'features'
              ? [
                  {
                    // A feature reaches another feature only through that feature's index.ts.
                    group: ['../*/*', '!../../**', '!../*/index'],
                    message: "Import another feature through its index.ts ('../feature'), not its internals.",
                  },
                ]
              : []),
          ],
        },
      ],
    },
  })),
  {
    // The webview bundle shares only the chat core with the extension.
    files: ['media/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noVscode],
          patterns: Object.keys(LAYER_IMPORTS)
            .filter((layer) => !WEBVIEW_IMPORTS.includes(layer))
            .map((layer) => ({
              group: [`**/src/${layer}`, `**/src/${layer}/**`],
              message: 'The webview shares only src/chatCore with the extension.',
            })),
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'test/**/*.js', 'test/**/*.cjs', 'scripts/**/*.mjs', '*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['scripts/**/*.mjs', 'test/**/*.mjs', '*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['test/**/*.js', 'test/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
);
