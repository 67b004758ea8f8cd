/** The models this backend really serves, and the error for those it does not. */
import { LOCAL_CHAT_MODEL } from '../../api/gateway/schemas';
import { ApiError } from '../http/errors';
import { LOCAL_EMBEDDING_DEFAULT_DIMENSIONS, LOCAL_EMBEDDING_MODEL } from './localEmbedding';

export { LOCAL_CHAT_MODEL };

export interface ModelInfo {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  [key: string]: unknown;
}

/** Fixed so the list does not change between restarts. */
const LOCAL_CREATED = 1_735_689_600;

export const LOCAL_CHAT_MODEL_INFO: ModelInfo = {
  id: LOCAL_CHAT_MODEL,
  object: 'model',
  created: LOCAL_CREATED,
  owned_by: 'docchat-local',
  description:
    'Built-in extractive model: answers by quoting the most relevant sentences of the numbered sources ' +
    'supplied in the messages, with their [n] citations. It does not generate new text.',
  context_window: null,
  // It quotes sources and never calls a tool: said here so agents do not hand it tools.
  capabilities: { tool_calling: false },
};

export const LOCAL_EMBEDDING_MODEL_INFO: ModelInfo = {
  id: LOCAL_EMBEDDING_MODEL,
  object: 'model',
  created: LOCAL_CREATED,
  owned_by: 'docchat-local',
  description: 'Lexical feature-hashing embedding (words, word pairs, character trigrams); not a neural model.',
  dimensions: LOCAL_EMBEDDING_DEFAULT_DIMENSIONS,
};

export function modelNotFound(model: string, available: string[], param = 'model'): ApiError {
  return new ApiError({
    type: 'not_found_error',
    message: `The model '${model}' is not served by this backend. Available: ${available.join(', ') || 'none'}.`,
    param,
    code: 'model_not_found',
  });
}
