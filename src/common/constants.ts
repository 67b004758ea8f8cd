/**
 * Every command id, setting key, secret key and view id DocChat uses, declared once.
 * A unit test checks that package.json contributes exactly the commands registered here.
 */

export const EXTENSION_ID = 'docchat.docchat';

export const ViewIds = {
  container: 'docchat',
  stores: 'docchat.stores',
} as const;

export const Commands = {
  setDocumentsToken: 'docchat.setDocumentsToken',
  setGatewayApiKey: 'docchat.setGatewayApiKey',
  signOut: 'docchat.signOut',
  refreshStores: 'docchat.refreshStores',
  showOutput: 'docchat.showOutput',
} as const;
export type CommandId = (typeof Commands)[keyof typeof Commands];

/** Setting keys relative to the `docchat` section. */
export const Settings = {
  documentsUrl: 'documents.url',
  gatewayUrl: 'gateway.url',
  projectCode: 'gateway.projectCode',
  defaultModel: 'chat.defaultModel',
  pageSize: 'stores.pageSize',
  searchResultCount: 'search.maxResults',
  skipOcrField: 'api.skipOcrField',
  fileIdsField: 'api.fileIdsField',
  allowInsecureHttp: 'network.allowInsecureHttp',
  caFiles: 'network.caFiles',
  proxy: 'network.proxy',
} as const;
export type SettingKey = (typeof Settings)[keyof typeof Settings];
export const SETTINGS_SECTION = 'docchat';

export const SecretKeys = {
  documentsToken: 'docchat.documentsToken',
  gatewayApiKey: 'docchat.gatewayApiKey',
  localToken: 'docchat.localToken',
} as const;
export type SecretKey = (typeof SecretKeys)[keyof typeof SecretKeys];

/** Context keys used in `when` clauses of package.json. */
export const ContextKeys = {
  signedIn: 'docchat.signedIn',
  localMode: 'docchat.localMode',
} as const;
