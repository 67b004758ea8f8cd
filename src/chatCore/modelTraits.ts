/**
 * What the chat panel needs to know about a model or a gateway setting before any request. No
 * imports: the webview bundle uses it, and keeps the API's modules out (a unit test checks that
 * these names are the gateway's, src/api/gateway/models.ts).
 */

/** The embedded backend's quoting model (LOCAL_CHAT_MODEL of the gateway's models). */
export const LOCAL_CHAT_MODEL = 'local-extractive';
/** What the gateway is sent when no project code is set (NO_PROJECT_CODE). */
const NO_PROJECT_CODE = 'NA';

/** True for a model that has no temperature or answer length (local-extractive quotes its sources). */
export function ignoresSampling(model: string): boolean {
  return model === LOCAL_CHAT_MODEL;
}

/** True when a project code is set (not empty, not the "none" value sent without one). */
export function hasProjectCode(projectCode: string): boolean {
  return projectCode.trim() !== '' && projectCode !== NO_PROJECT_CODE;
}
