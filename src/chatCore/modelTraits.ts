/**
 * What the chat panel needs to know about a model or a gateway setting before any request. No
 * imports but the gateway's constants: the webview bundle uses it too.
 */
import { LOCAL_CHAT_MODEL, NO_PROJECT_CODE } from '../api/gateway/models';

export { LOCAL_CHAT_MODEL };

/** True for a model that has no temperature or answer length (local-extractive quotes its sources). */
export function ignoresSampling(model: string): boolean {
  return model === LOCAL_CHAT_MODEL;
}

/** True when a project code is set (not empty, not the "none" value sent without one). */
export function hasProjectCode(projectCode: string): boolean {
  return projectCode.trim() !== '' && projectCode !== NO_PROJECT_CODE;
}
