/**
 * The argument of `docchat.chat.addContext`, which the search quick pick runs with a result.
 * Commands can be run by anything, so the argument is validated. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import * as z from 'zod';
import type { PassageSource } from '../../chatCore/protocol';

/** One search result to add as chat context. */
export type ChatContextPassage = Omit<PassageSource, 'kind'>;

/** Passages longer than this are cut: context goes into every prompt of the question. */
export const MAX_CONTEXT_CHARS = 20_000;

const passage = z
  .object({
    storeId: z.string().min(1).optional(),
    vectorStoreId: z.string().min(1).optional(),
    vector_store_id: z.string().min(1).optional(),
    storeName: z.string().optional(),
    fileId: z.string().min(1).optional(),
    file_id: z.string().min(1).optional(),
    filename: z.string().optional(),
    content: z.string().min(1),
    score: z.number().optional(),
  })
  .transform((p) => ({ ...p, storeId: p.storeId ?? p.vectorStoreId ?? p.vector_store_id, fileId: p.fileId ?? p.file_id }))
  .refine((p) => p.storeId !== undefined && p.fileId !== undefined, { error: () => l10n.t('A passage needs a store id and a file id.') });

/** The passages in `arg` (one or a list), or undefined when it is not a passage at all. */
export function parseContextArgument(arg: unknown): PassageSource[] | undefined {
  const parsed = z.union([passage, z.array(passage).min(1)]).safeParse(arg);
  if (!parsed.success) {
    return undefined;
  }
  const list = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
  return list.map((p) => ({
    kind: 'passage',
    storeId: p.storeId!,
    ...(p.storeName ? { storeName: p.storeName } : {}),
    fileId: p.fileId!,
    ...(p.filename ? { filename: p.filename } : {}),
    content: p.content.slice(0, MAX_CONTEXT_CHARS),
    ...(p.score !== undefined ? { score: p.score } : {}),
  }));
}
