import * as assert from 'node:assert/strict';
import type { HostMessage } from '../../../../src/chatCore/protocol';
import { ChatSession } from '../../../../src/features/chat/chatSession';
import { ConversationStore } from '../../../../src/features/chat/conversationStore';
import { ask, MemoryState, questions, saveNow, testEnvironment } from './fixtures';

describe('chat conversations: two windows on the same workspace', () => {
  it('keeps the turns of both windows when each saves the conversation (no last writer wins)', async () => {
    const state = new MemoryState();
    const setup = new ConversationStore(state);
    const c = setup.create();
    c.title = 'How do I create a store?';
    ask(c, 't1', 'How do I create a store?', 10);
    await saveNow(setup);

    const window1 = new ConversationStore(state);
    const window2 = new ConversationStore(state);
    ask(window2.active(), 't2', 'How do I delete a store?', 20);
    await saveNow(window2);
    ask(window1.active(), 't3', 'How do I rename a store?', 30);
    await saveNow(window1);

    const expected = ['How do I create a store?', 'How do I delete a store?', 'How do I rename a store?'];
    assert.deepEqual(questions(new ConversationStore(state).get(c.id)), expected, 'a window opened afterwards shows both windows’ turns');
    assert.deepEqual(questions(window1.get(c.id)), expected, 'the saving window picks up the other window’s turn');
    assert.equal(new ConversationStore(state).get(c.id)!.messages.length, 6, 'each question keeps its answer');
  });

  it('keeps every turn when two windows write interleaved, turn by turn in the order they were asked', async () => {
    const state = new MemoryState();
    const setup = new ConversationStore(state);
    const id = setup.create().id;
    ask(setup.active(), 'first', 'Q0', 1);
    await saveNow(setup);
    const windows = [new ConversationStore(state), new ConversationStore(state)];
    for (let i = 1; i <= 6; i++) {
      const w = windows[i % 2]!;
      ask(w.get(id)!, `t${i}`, `Q${i}`, i * 10);
      await saveNow(w);
    }
    const want = ['Q0', 'Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6'];
    assert.deepEqual(questions(new ConversationStore(state).get(id)), want);
    const roles = new ConversationStore(state).get(id)!.messages.map((m) => m.role);
    assert.deepEqual(
      roles,
      want.flatMap(() => ['user', 'assistant']),
      'each answer follows its question',
    );
  });

  it('keeps a conversation started in another window', async () => {
    const state = new MemoryState();
    const window1 = new ConversationStore(state);
    const window2 = new ConversationStore(state);
    ask(window1.active(), 'a', 'In window 1', 1);
    ask(window2.active(), 'b', 'In window 2', 2);
    await saveNow(window1);
    await saveNow(window2);
    const titles = new ConversationStore(state).summaries().map((s) => questions(new ConversationStore(state).get(s.id))?.[0]);
    assert.deepEqual(titles.sort(), ['In window 1', 'In window 2']);
  });

  it('does not bring back a conversation deleted in another window', async () => {
    const state = new MemoryState();
    const setup = new ConversationStore(state);
    const kept = setup.create();
    ask(kept, 'k', 'Kept', 1);
    const doomed = setup.create();
    ask(doomed, 'd', 'Deleted', 2);
    await saveNow(setup);

    const window1 = new ConversationStore(state);
    const window2 = new ConversationStore(state);
    window2.delete(doomed.id);
    await saveNow(window2);
    ask(window1.get(kept.id)!, 'k2', 'Kept again', 3);
    await saveNow(window1);

    const reopened = new ConversationStore(state);
    assert.equal(reopened.get(doomed.id), undefined, 'the other window’s save does not undo the delete');
    assert.equal(window1.get(doomed.id), undefined, 'and the other window drops it too');
    assert.deepEqual(questions(reopened.get(kept.id)), ['Kept', 'Kept again']);
  });

  it('does not bring back an answer replaced in another window (regenerate)', async () => {
    const state = new MemoryState();
    const setup = new ConversationStore(state);
    const c = setup.create();
    ask(c, 't1', 'Q', 1);
    await saveNow(setup);
    const window1 = new ConversationStore(state);
    const window2 = new ConversationStore(state);
    const regenerated = window1.get(c.id)!;
    regenerated.messages.pop();
    regenerated.messages.push({ id: 'new-a', role: 'assistant', content: 'Better', createdAt: 5, status: 'done' });
    await saveNow(window1);
    await saveNow(window2);
    const ids = new ConversationStore(state).get(c.id)!.messages.map((m) => m.id);
    assert.deepEqual(ids, ['t1-q', 'new-a']);
  });

  it('takes the finished answer from the window that streamed it, not the stopped copy another window read', async () => {
    const state = new MemoryState();
    const window1 = new ConversationStore(state);
    const c = window1.create();
    c.messages.push({ id: 'q', role: 'user', content: 'Q', createdAt: 1 });
    const answer = { id: 'a', role: 'assistant' as const, content: 'Hal', createdAt: 2, status: 'streaming' as const, requestId: 'r' };
    c.messages.push(answer);
    await saveNow(window1);
    const window2 = new ConversationStore(state);
    Object.assign(answer, { content: 'Half of it, then all of it.', status: 'done' });
    await saveNow(window1);
    ask(window2.get(c.id)!, 't2', 'Next', 10);
    await saveNow(window2);
    const stored = new ConversationStore(state).get(c.id)!;
    assert.deepEqual(
      stored.messages.map((m) => [m.id, m.content]),
      [
        ['q', 'Q'],
        ['a', 'Half of it, then all of it.'],
        ['t2-q', 'Next'],
        ['t2-a', 'Answer to Next'],
      ],
    );
  });

  it('shows another conversation when the one shown here was deleted in another window (at a save, or coming back)', async () => {
    for (const via of ['save', 'refresh'] as const) {
      const state = new MemoryState();
      const setup = new ConversationStore(state);
      const other = setup.create();
      ask(other, 'o', 'Other', 1);
      const shown = setup.create();
      ask(shown, 's', 'Shown', 2);
      await saveNow(setup);
      const session = new ChatSession(new ConversationStore(state), testEnvironment());
      const posted: HostMessage[] = [];
      session.onMessage((m) => posted.push(m));
      assert.equal(session.current.id, shown.id);
      const window2 = new ConversationStore(state);
      window2.delete(shown.id);
      await saveNow(window2);
      if (via === 'save') {
        session.setModel('alpha-5-mini');
        await session.whenSaved();
      } else {
        await session.refresh();
      }
      const last = posted.filter((m): m is Extract<HostMessage, { type: 'state' }> => m.type === 'state').at(-1);
      assert.equal(last?.conversation.id, other.id, `the panel follows (${via})`);
      assert.deepEqual(
        last?.conversations.map((c) => c.id),
        [other.id],
        `the deleted conversation leaves the list (${via})`,
      );
      assert.equal(new ConversationStore(state).get(shown.id), undefined, `and stays deleted (${via})`);
    }
  });

  it('takes the newer title and options from the window that asked last, and keeps the context waiting in this window', async () => {
    let time = 100;
    const state = new MemoryState();
    const setup = new ConversationStore(state, () => time);
    const c = setup.create({ model: 'alpha-5-mini' });
    await saveNow(setup);
    const window1 = new ConversationStore(state, () => time);
    const window2 = new ConversationStore(state, () => time);
    const waiting = { kind: 'web' as const, url: 'https://example.com/', title: 'Example', content: 'x' };
    window1.get(c.id)!.pendingContext.push(waiting);
    time = 200;
    const asked = window2.get(c.id)!;
    ask(asked, 't', 'How do I delete a store?', 200);
    asked.title = 'How do I delete a store?';
    asked.options.model = 'beta-7';
    window2.touch(asked);
    await saveNow(window2);
    await saveNow(window1);
    const merged = window1.get(c.id)!;
    assert.equal(merged.title, 'How do I delete a store?');
    assert.equal(merged.options.model, 'beta-7');
    assert.deepEqual(merged.pendingContext, [waiting]);
  });
});
