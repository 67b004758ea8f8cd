/**
 * The gateway's model names, which the chat and the model picker need before any request. No
 * imports: the extension reads these at activation, and keeping this file free of zod lets zod and
 * the schemas load at the first request instead. schemas.ts re-exports them.
 */
export const COMPLETION_MODELS = [
  'alpha-5-1',
  'alpha-5-mini',
  'alpha-5-nano',
  'beta-haiku-4-5',
  'beta-sonnet-4-5',
  'beta-opus-4-1',
  'gamma-4-fast-non-reasoning',
  'gamma-4-fast-reasoning',
] as const;

export const LEGACY_INFERENCE_MODELS = [
  'alpha-4.1',
  'alpha-4o',
  'alpha-4o-mini',
  'o1',
  'o3',
  'o3-mini',
  'o4-mini',
  'delta-4-maverick',
  'nemo',
] as const;

/** The embedded backend's chat model, which answers only by quoting the sources it is given. */
export const LOCAL_CHAT_MODEL = 'local-extractive';

/** The error code of a web tool asked of the embedded backend, which has no internet service (Local mode). */
export const LOCAL_MODE_TOOL = 'local_mode';

export const EMBEDDING_MODELS = ['text-embed-3-small', 'text-embed-3-large'] as const;

/** The inference endpoint's announced retirement; the year is not shown. */
export const INFERENCE_RETIREMENT = 'December 17';

/** `X-Project-Code` / `project_code` when no project is set. */
export const NO_PROJECT_CODE = 'NA';
