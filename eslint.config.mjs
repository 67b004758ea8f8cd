// @ts-check
// Lint rules that keep DocChat's layers apart and its code in one style. Formatting is Prettier's
// job (`npm run format`); eslint-config-prettier turns off every rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noVscode = { name: 'vscode', message: 'This layer runs outside VS Code (tests, the CLI, the backend): it must not import vscode.' };

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test-results/**', '.vscode-test/**', '**/*.d.ts'] },
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
  {
    // The HTTP clients, the embedded backend, the chat core, the MCP server and the worker threads are plain TypeScript.
    files: ['src/api/**/*.ts', 'src/backend/**/*.ts', 'src/chatCore/**/*.ts', 'src/mcp/**/*.ts', 'src/workers/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode] }] },
  },
  {
    // A feature reaches another feature only through that feature's index.ts.
    files: ['src/features/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*/*', '!../../**', '!../*/index'],
              message: "Import another feature through its index.ts ('../feature'), not its internals.",
            },
          ],
        },
      ],
    },
  },
  {
    // The webview bundle shares only the chat core with the extension.
    files: ['media/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noVscode],
          patterns: [
            { group: ['**/src/features/**', '**/src/services/**'], message: 'The webview shares only src/chatCore with the extension.' },
          ],
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
