// StrykerJS over the modules where an unnoticed break is dangerous or loses data. One module
// group at a time (DOCCHAT_MUTATION_GROUP, set by `npm run mutation`), each with the mutated code
// narrowed to its security or durability decisions and the mocha specs that should see them, so
// a run fits two shared cores. Incremental: a rerun only tests mutants whose code or tests changed.
import { readFileSync } from 'node:fs';

/**
 * `file:start-end` for the lines from the first line matching `from` to the first line after it
 * matching `to`, or that one line without `to` (found each run, so the ranges follow the code as it moves).
 */
function lines(file, from, to) {
  const text = readFileSync(new URL(file, import.meta.url), 'utf8').split('\n');
  const start = text.findIndex((l) => from.test(l));
  const end = to ? text.findIndex((l, i) => i > start && to.test(l)) : start;
  if (start < 0 || end < 0) throw new Error(`mutation group: ${file} no longer has ${from} … ${to}; update stryker.config.mjs`);
  return `${file}:${start + 1}-${end + 1}`;
}

/** name → the code mutated and the specs run against it. */
export const GROUPS = {
  // The chat host: which links open, which commands a panel button runs, the webview's CSP.
  chatHost: {
    mutate: [
      'src/chatCore/links.ts',
      lines('src/features/chat/chatController.ts', /^const ACTION_COMMANDS/, /^} as const;/),
      lines('src/features/chat/chatController.ts', /^ {6}case 'openLink':/, /^ {2}private openSource/),
      lines('src/features/chat/sourceOpener.ts', /^ {2}async open\(/, /^ {6}return;$/),
      lines('src/features/chat/sourceOpener.ts', /^ {2}async openExternal\(/, /^ {2}}$/),
      lines('src/features/chat/chatPanel.ts', /^ {4}panel\.webview\.options = /),
      lines('src/features/chat/chatPanel.ts', /^ {4}this\._register\(panel\.webview\.onDidReceiveMessage/),
      lines('src/features/chat/chatPanel.ts', /^ {4}panel\.webview\.html = /),
      lines('src/features/chat/chatPanel.ts', /^ {2}post\(message: HostMessage\)/, /^ {2}override dispose/),
      'src/features/chat/webviewHtml.ts',
      lines('src/features/chat/chatPage.ts', /^export function contentSecurityPolicy/, /^export function renderChatPage/),
    ],
    spec: [
      'test/unit/security/chatHostActions.test.ts',
      'test/unit/security/chatHostLockdown.test.ts',
      'test/unit/security/webviewHost.test.ts',
      'test/unit/features/chat/chatPage.test.ts',
    ],
  },
  // The webview message validator.
  protocol: {
    mutate: [lines('src/chatCore/protocol.ts', /^const id = /, /^export function parseWebviewMessage/)],
    spec: ['test/unit/chatCore/protocol.test.ts', 'test/unit/security/webviewHost.test.ts', 'test/unit/security/chatHostActions.test.ts'],
  },
  // The MCP server: its configuration (the change switch) and its tools' argument checks and gate.
  mcp: {
    mutate: [
      'src/mcp/environment.ts',
      lines('src/mcp/tools.ts', /^const storeInput/, /^const storeOutput/),
      lines('src/mcp/tools.ts', /^ +query: z$/, /^ +outputSchema: /),
      lines('src/mcp/tools.ts', /^ +page: z$/, /^ +\.describe\('Page to read/),
      lines('src/mcp/tools.ts', /^ {2}if \(!deps\.allowChanges\) return;/),
    ],
    spec: [
      'test/unit/reliability/namedBreaks.test.ts',
      'test/unit/mcp/mcpConfig.test.ts',
      'test/unit/mcp/mcpTools.test.ts',
      'test/unit/mcp/hostConfig.test.ts',
    ],
  },
  // Files the backend writes: ids that must not leave their folder, writes that must be durable.
  backendFiles: {
    mutate: ['src/backend/persistence/atomicFile.ts', lines('src/backend/documents/disk.ts', /^const SAFE_ID/, /^ {2}read\(fileId/)],
    spec: ['test/unit/reliability/fsyncOrder.test.ts'],
  },
  // The backend's HTTP layer: who may call, how big and what type a body may be, routes, rate limits.
  backendHttp: {
    mutate: [
      'src/backend/http/auth.ts',
      'src/backend/http/body.ts',
      'src/backend/http/router.ts',
      'src/backend/http/slidingWindowLimiter.ts',
    ],
    spec: ['test/unit/backend/http/*.test.ts', 'test/unit/security/httpLayer.test.ts', 'test/unit/security/limits.test.ts'],
  },
  // Secrets and sign-in: credentials kept in SecretStorage only, the pasted value checked and
  // trimmed, Sign Out removing both credentials.
  secrets: {
    mutate: [
      'src/services/secrets.ts',
      lines('src/features/auth/index.ts', /^export function validateCredential/, /^}$/),
      lines('src/features/auth/index.ts', /^async function promptSecret/, /^}$/),
      lines('src/features/auth/index.ts', /^ {4}registerCommand\(services\.errors, Commands\.setDocumentsToken,/, /^ {2}\);$/),
    ],
    spec: ['test/unit/services/*.test.ts'],
  },
  journal: {
    mutate: ['src/backend/persistence/journal.ts'],
    spec: ['test/unit/backend/persistence/*.test.ts', 'test/unit/reliability/*.test.ts'],
  },
  query: {
    mutate: ['src/chatCore/searchQuery.ts', 'src/chatCore/relevance.ts', 'src/chatCore/conversationStores.ts'],
    spec: [
      'test/unit/chatCore/searchQuery.test.ts',
      'test/unit/chatCore/relevance.test.ts',
      'test/unit/chatCore/queryContract.test.ts',
      'test/unit/chatCore/relevanceScenarios.test.ts',
      'test/unit/chatCore/storeMerge.test.ts',
      'test/unit/chatCore/followUpFusion.test.ts',
      'test/unit/chatCore/followUpGrounding.test.ts',
      'test/unit/chatCore/grounded.test.ts',
      'test/unit/features/chat/chatSession.test.ts',
      'test/unit/features/chat/answerGenerator.test.ts',
      'test/unit/reliability/namedBreaks.test.ts',
    ],
  },
};

const name = process.env.DOCCHAT_MUTATION_GROUP ?? 'chatHost';
const group = GROUPS[name];
if (!group) throw new Error(`Unknown mutation group "${name}"; one of ${Object.keys(GROUPS).join(', ')}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'mocha',
  mochaOptions: { config: '.mocharc.json', spec: group.spec },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.stryker.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: group.mutate,
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  concurrency: Number(process.env.DOCCHAT_MUTATION_CONCURRENCY ?? 2),
  timeoutMS: 20_000,
  ignorePatterns: ['dist', 'out', 'test-results', '.vscode-test', 'reports', '*.vsix', '.stryker-tmp'],
  tempDirName: `.stryker-tmp/${name}`,
  cleanTempDir: true,
};
