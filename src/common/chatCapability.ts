/**
 * What a model server says of its models' abilities, read the same way by "Use a Language Model…"
 * (detection) and by Local mode's backend (the chat's model list): LM Studio's own list
 * (`GET /api/v0/models`) gives each model's `type` (`llm` and `vlm` chat, `embeddings` do not);
 * Ollama's `POST /api/show` gives a model's `capabilities` (`completion` chats). Where a server says
 * nothing, the model is kept: nothing is guessed.
 */

/** The LM Studio model types that chat. */
const LM_STUDIO_CHAT_TYPES = new Set(['llm', 'vlm']);

/** At most this many models are asked about one by one (Ollama's `/api/show`); the others are kept. */
export const MAX_CAPABILITY_CHECKS = 50;

/** The ids LM Studio's `/api/v0/models` answer types as not chatting (none for any other answer). */
export function lmStudioNonChat(body: unknown): Set<string> {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return new Set();
  return new Set(
    data
      .filter((m): m is { id: string; type: string } => typeof m?.id === 'string' && typeof m?.type === 'string')
      .filter((m) => !LM_STUDIO_CHAT_TYPES.has(m.type))
      .map((m) => m.id),
  );
}

/** False when Ollama's `/api/show` answer lists capabilities without `completion`; true otherwise. */
export function ollamaChats(body: unknown): boolean {
  const capabilities = (body as { capabilities?: unknown } | null)?.capabilities;
  return !Array.isArray(capabilities) || capabilities.includes('completion');
}

/**
 * `ids` without the models the server says cannot chat. `get(path, body?)` asks the server's origin
 * (`/api/v0/models`, `/api/show`) and rejects when it does not answer; `ollama`: ask `/api/show`.
 */
export async function chatCapable(
  ids: readonly string[],
  get: (path: string, body?: unknown) => Promise<unknown>,
  options: { ollama: boolean; signal?: AbortSignal },
): Promise<string[]> {
  let kept = [...ids];
  try {
    const notChat = lmStudioNonChat(await get('/api/v0/models'));
    kept = kept.filter((id) => !notChat.has(id));
  } catch {
    // Not LM Studio.
  }
  if (!options.ollama || options.signal?.aborted) return kept;
  const chats = await Promise.all(
    kept.map((id, i) => (i >= MAX_CAPABILITY_CHECKS ? true : get('/api/show', { model: id }).then(ollamaChats, () => true))),
  );
  return kept.filter((_, i) => chats[i]);
}
