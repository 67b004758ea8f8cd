/** The tuning and held-out halves of a conversation set: conversations split by a hash of their id. */
import { createHash } from 'node:crypto';

export type Half = 'tune' | 'heldout';

/** A conversation's half: the first byte of the SHA-256 of its id, even or odd. */
export function halfOf(conversationId: string): Half {
  return createHash('sha256').update(conversationId).digest()[0]! % 2 === 0 ? 'tune' : 'heldout';
}
