import * as assert from 'node:assert/strict';
import type { ConversationSummary } from '../../../../src/chatCore/protocol';
import { conversationLabels } from '../../../../media/chat/conversationList';

// The chat's conversation list: every label tells its conversation apart from the others.

const minute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const second = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const title = 'How do I create a store?';
const at = (s: number) => Date.UTC(2026, 10, 28, 2, 58, s);
const summary = (id: string, createdAt: number, questions = 1, t = title): ConversationSummary => ({
  id,
  title: t,
  createdAt,
  updatedAt: createdAt,
  questions,
});

describe('conversation list labels', () => {
  it('gives the start time to the second when two conversations with the same title and count started in the same minute', () => {
    const labels = conversationLabels([
      summary('c1', at(41)),
      summary('c2', at(7)),
      summary('c3', at(20), 2),
      summary('c4', at(9), 1, 'Retention'),
    ]);
    assert.deepEqual(labels, [
      `${second.format(at(41))} — ${title} (1 question)`,
      `${second.format(at(7))} — ${title} (1 question)`,
      // Its count already tells it apart: to the minute, as before.
      `${minute.format(at(20))} — ${title} (2 questions)`,
      'Retention',
    ]);
    assert.notEqual(labels[0], labels[1]);
  });

  it('numbers conversations still alike to the second, in the order they started', () => {
    const labels = conversationLabels([summary('b', at(5)), summary('a', at(5)), summary('c', at(4))]);
    assert.deepEqual(labels, [
      `${second.format(at(5))} — ${title} (1 question) (2)`,
      `${second.format(at(5))} — ${title} (1 question) (1)`,
      `${second.format(at(4))} — ${title} (1 question)`,
    ]);
  });

  it('keeps a label unique when another conversation is titled like it', () => {
    const lookalike = `${minute.format(at(0))} — ${title} (1 question)`;
    const labels = conversationLabels([summary('c1', at(0)), summary('c2', at(0) + 60_000 * 60), summary('c3', at(1), 1, lookalike)]);
    assert.equal(new Set(labels).size, labels.length, labels.join('\n'));
    assert.equal(labels[2], lookalike, 'its title is its own: it stays plain');
  });

  it('gives every conversation a label of its own, whatever their titles, times and counts', () => {
    // A seeded generator: few titles, times and counts, so that many collide.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const summaries = Array.from({ length: 1 + next(12) }, (_, i) =>
        summary(`c${i}`, at(next(3)) + next(2) * 60_000, 1 + next(2), ['A', 'B', title][next(3)]),
      );
      const labels = conversationLabels(summaries);
      assert.equal(new Set(labels).size, labels.length, labels.join('\n'));
      // A title no other conversation has stays plain.
      summaries.forEach((s, i) => {
        if (summaries.filter((o) => o.title === s.title).length === 1) assert.equal(labels[i], s.title);
      });
    }
  });
});
