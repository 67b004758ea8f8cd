/**
 * Two windows on the same workspace write the same stored conversations. Each window saves by
 * re-reading what is stored and merging it with its own copy (a three-way merge): the base is
 * what this window last read or wrote, so a conversation or message that is stored but not in the
 * base was added by another window (kept), and one that is in the base but missing on one side was
 * deleted on that side (stays deleted: the base plays the part of tombstones, without storing them).
 * Pure: no `vscode`, no storage; the local conversation objects are updated in place (the session
 * and a streaming answer hold references to them).
 */
import type { Conversation, ChatMessage } from './conversation';

/** What a window last read or wrote: per conversation, each message's signature. */
export type MergeBase = Map<string, Map<string, string>>;

/** Changes when a message's stored form changes in a way another window should take over. */
function signature(m: ChatMessage): string {
  return m.role === 'assistant' ? `${m.status}|${m.content.length}|${m.finishReason ?? ''}` : `${m.content.length}`;
}

export function mergeBaseOf(conversations: readonly Conversation[]): MergeBase {
  return new Map(conversations.map((c) => [c.id, new Map(c.messages.map((m) => [m.id, signature(m)]))]));
}

/**
 * A turn's messages stay together: every message sorts by the time of the question that opened
 * its turn (an answer takes its question's time), so two windows' turns interleave turn by turn.
 */
function turnTimes(messages: readonly ChatMessage[]): Map<string, number> {
  const times = new Map<string, number>();
  let turn = Number.NEGATIVE_INFINITY;
  for (const m of messages) {
    if (m.role === 'user' || turn === Number.NEGATIVE_INFINITY) turn = m.createdAt;
    times.set(m.id, turn);
  }
  return times;
}

function mergeMessages(local: Conversation, stored: Conversation, base: Map<string, string> | undefined): void {
  const storedById = new Map(stored.messages.map((m) => [m.id, m]));
  const localIds = new Set(local.messages.map((m) => m.id));
  const entries: Array<{ message: ChatMessage; time: number; side: number; index: number }> = [];
  const localTimes = turnTimes(local.messages);
  local.messages.forEach((m, index) => {
    const other = storedById.get(m.id);
    if (!other && base?.has(m.id)) return; // deleted by another window
    // Unchanged here since the last read, changed there (an answer that finished in the other window).
    const takeStored = other && base?.get(m.id) === signature(m) && signature(other) !== signature(m);
    entries.push({ message: takeStored ? other : m, time: localTimes.get(m.id)!, side: 0, index });
  });
  const storedTimes = turnTimes(stored.messages);
  stored.messages.forEach((m, index) => {
    if (localIds.has(m.id) || base?.has(m.id)) return; // here already, or deleted here
    entries.push({ message: m, time: storedTimes.get(m.id)!, side: 1, index });
  });
  entries.sort((a, b) => a.time - b.time || a.side - b.side || a.index - b.index);
  local.messages.splice(0, local.messages.length, ...entries.map((e) => e.message));
}

/**
 * Merges `stored` (what another window may have written) into `local` (this window's
 * conversations, updated in place) given `base` (what this window last read or wrote). Returns
 * the merged list: local order first, then conversations only another window has.
 */
export function mergeConversations(local: readonly Conversation[], stored: readonly Conversation[], base: MergeBase): Conversation[] {
  const storedById = new Map(stored.map((c) => [c.id, c]));
  const localIds = new Set(local.map((c) => c.id));
  const merged: Conversation[] = [];
  for (const c of local) {
    const other = storedById.get(c.id);
    if (!other) {
      // New here, or deleted by another window: it stays deleted, unless a turn was asked here
      // since (that turn is not lost).
      const known = base.get(c.id);
      if (!known || c.messages.some((m) => !known.has(m.id))) merged.push(c);
      continue;
    }
    mergeMessages(c, other, base.get(c.id));
    // The newer title and options win; the context waiting in this window's composer stays its own.
    if (other.updatedAt > c.updatedAt) {
      c.updatedAt = other.updatedAt;
      c.title = other.title;
      c.options = other.options;
    }
    merged.push(c);
  }
  for (const c of stored) {
    if (!localIds.has(c.id) && !base.has(c.id)) merged.push(c); // new in another window
  }
  return merged;
}
