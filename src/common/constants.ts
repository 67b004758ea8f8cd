/**
 * Every command id, setting key, secret key and view id DocChat uses, declared once.
 * A unit test checks that package.json contributes exactly the commands registered here.
 */

export const EXTENSION_ID = 'docchat.docchat';

export const ViewIds = {
  container: 'docchat',
  stores: 'docchat.stores',
  /** The chat panel's webview type. */
  chat: 'docchat.chat',
} as const;

export const Commands = {
  setDocumentsToken: 'docchat.setDocumentsToken',
  setGatewayApiKey: 'docchat.setGatewayApiKey',
  signOut: 'docchat.signOut',
  refreshStores: 'docchat.refreshStores',
  showOutput: 'docchat.showOutput',
  // Stores tree
  refreshNode: 'docchat.refreshNode',
  loadMore: 'docchat.loadMore',
  createStore: 'docchat.createStore',
  copyId: 'docchat.copyId',
  revealInTree: 'docchat.revealInTree',
  attachCurrentFile: 'docchat.attachCurrentFile',
  attachFiles: 'docchat.attachFiles',
  removeFromStore: 'docchat.removeFromStore',
  deleteFile: 'docchat.deleteFile',
  deleteStore: 'docchat.deleteStore',
  // Metadata
  setFileMetadata: 'docchat.setFileMetadata',
  setStoreFileMetadata: 'docchat.setStoreFileMetadata',
  // Search
  search: 'docchat.search',
  searchInFiles: 'docchat.searchInFiles',
  clearPassageHighlight: 'docchat.clearPassageHighlight',
  // Chat
  openChat: 'docchat.chat.open',
  newChat: 'docchat.chat.new',
  askAboutSelection: 'docchat.chat.askAboutSelection',
  /** Internal: the search quick pick adds a result as chat context (argument: ChatContextPassage). */
  addChatContext: 'docchat.chat.addContext',
  /** The last answer as plain text in an editor (Alt+F2 in the chat panel). */
  chatAccessibleView: 'docchat.chat.accessibleView',
  // Native chat (@docchat) and gateway tools
  chooseChatStore: 'docchat.participant.chooseStore',
  /** Internal: citation links in @docchat answers open a passage (argument: Passage). */
  openChatPassage: 'docchat.participant.openPassage',
  findPeopleBySkill: 'docchat.findPeopleBySkill',
  chooseEmbeddingModel: 'docchat.chooseEmbeddingModel',
  // Folder sync
  syncFolder: 'docchat.sync.folder',
  syncNow: 'docchat.sync.now',
  stopFollowing: 'docchat.sync.stopFollowing',
  retryFailedSync: 'docchat.sync.retryFailed',
  // First run
  chooseStoreForChat: 'docchat.chat.chooseStore',
  useLanguageModel: 'docchat.local.useLanguageModel',
  openWalkthrough: 'docchat.openWalkthrough',
  /** The Settings editor at DocChat's settings, on the tab where they live (argument: a setting key). */
  openSettings: 'docchat.openSettings',
  // Agents
  copyMcpConfiguration: 'docchat.copyMcpConfiguration',
} as const;
export type CommandId = (typeof Commands)[keyof typeof Commands];

/** Setting keys relative to the `docchat` section. */
export const Settings = {
  documentsUrl: 'documents.url',
  gatewayUrl: 'gateway.url',
  projectCode: 'gateway.projectCode',
  defaultModel: 'chat.defaultModel',
  announceAnswers: 'chat.announceAnswers',
  pageSize: 'stores.pageSize',
  searchResultCount: 'search.maxResults',
  skipOcrField: 'api.skipOcrField',
  fileIdsField: 'api.fileIdsField',
  allowInsecureHttp: 'network.allowInsecureHttp',
  caFiles: 'network.caFiles',
  proxy: 'network.proxy',
  strictSSL: 'network.strictSSL',
  attachSkipOcr: 'attach.skipOcr',
  attachOcrLanguages: 'attach.ocrLanguages',
  embeddingModel: 'gateway.embeddingModel',
  syncExclude: 'sync.exclude',
  syncRemoveDeleted: 'sync.removeDeleted',
  syncWatch: 'sync.watch',
  detectModelServers: 'local.detectModelServers',
  mcpAllowChanges: 'mcp.allowChanges',
} as const;
export type SettingKey = (typeof Settings)[keyof typeof Settings];
export const SETTINGS_SECTION = 'docchat';

export const SecretKeys = {
  documentsToken: 'docchat.documentsToken',
  gatewayApiKey: 'docchat.gatewayApiKey',
  /** Key of the language-model server Local mode forwards chat to (when the user gave one). */
  modelServerKey: 'docchat.modelServerKey',
} as const;
export type SecretKey = (typeof SecretKeys)[keyof typeof SecretKeys];

/**
 * Every key DocChat keeps in VS Code's extension state, declared once so that no two features
 * share one by accident. `global`: `globalState` (every workspace of the profile); `workspace`:
 * `workspaceState`.
 */
export const StateKeys = {
  /** global: the stores used last, most recent first (store pickers list them first). */
  recentStores: 'docchat.recentStores',
  /** workspace: the grounding a new chat starts with (a store, or none). */
  groundingChoice: 'docchat.grounding.lastChoice',
  /** global: the model server Local mode forwards chat to. */
  modelServer: 'docchat.local.modelServer',
  /** global: the chat panel's model list, cached per gateway. */
  chatModelList: 'docchat.chat.modelList',
  /** global: models that refused tool calls (reported in their capabilities). */
  agentsRefusedTools: 'docchat.agents.refusedTools',
  /** global: the gateway's models as offered in VS Code's model picker. */
  agentsModelList: 'docchat.agents.modelList',
  /** global: the store `@docchat` searches. */
  participantStore: 'docchat.participant.store',
  /** global: the stores `@docchat` searches when it searches several. */
  participantStores: 'docchat.participant.stores',
  /** workspace: the chat panel's conversations. */
  conversations: 'docchat.chat.conversations',
  /** workspace: the folders kept in sync with a store. */
  syncFollows: 'docchat.sync.follows',
  /** global: the walkthrough was opened once. */
  walkthroughShown: 'docchat.walkthrough.shown',
  /** global: the last "skip OCR" choice of Attach Files. */
  lastSkipOcr: 'docchat.lastSkipOcr',
} as const;

/** Context keys used in `when` clauses of package.json. */
export const ContextKeys = {
  signedIn: 'docchat.signedIn',
  localMode: 'docchat.localMode',
  /**
   * True when DocChat knows it cannot serve requests (signed out, or its backend failed). Menus
   * use `!docchat.unavailable`, which also holds before DocChat activated: their commands are
   * what starts DocChat in a window.
   */
  unavailable: 'docchat.unavailable',
  /** 'idle' | 'starting' | 'local' | 'remote' | 'signedOut' | 'error' (see ConnectionState). */
  connection: 'docchat.connection',
  /** True when the stores tree loaded and found no stores (drives the empty-state welcome). */
  storesEmpty: 'docchat.storesEmpty',
  /** Getting Started walkthrough: set once the user has done the step in this window. */
  storeCreated: 'docchat.walkthrough.storeCreated',
  fileAttached: 'docchat.walkthrough.fileAttached',
  answered: 'docchat.walkthrough.answered',
  participantAnswered: 'docchat.walkthrough.participantAnswered',
  /** An editor shows a passage highlighted by a citation or a search result (Escape clears it). */
  passageHighlighted: 'docchat.passageHighlighted',
} as const;

/** The Getting Started walkthrough's id (`<publisher>.<name>#<walkthrough id>`). */
export const WALKTHROUGH_ID = 'docchat.docchat#docchat.gettingStarted';

/** VS Code's own settings DocChat reads (full keys). */
export const VsCodeSettings = {
  httpProxy: 'http.proxy',
  httpNoProxy: 'http.noProxy',
  httpProxyStrictSSL: 'http.proxyStrictSSL',
  httpProxyAuthorization: 'http.proxyAuthorization',
  httpSystemCertificates: 'http.systemCertificates',
  /** Whether extensions' walkthroughs open by themselves after installing (the Welcome page's setting). */
  walkthroughsOpenOnInstall: 'workbench.welcomePage.walkthroughs.openOnInstall',
} as const;
