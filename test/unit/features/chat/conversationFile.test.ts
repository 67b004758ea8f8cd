import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CONVERSATIONS_FILE, ConversationFile, conversationFolder } from '../../../../src/features/chat/conversationFile';
import { ConversationStore } from '../../../../src/features/chat/conversationStore';
import { ask, MemoryState, questions, saveNow } from './fixtures';

describe('chat conversations: the file two windows on a workspace share', () => {
  let folder: string;
  /** A window: its own workspaceState and its own read of the shared file. */
  const openWindow = async (legacy = new MemoryState()) => {
    const store = new ConversationStore(new ConversationFile(folder, legacy));
    await store.opened;
    return store;
  };

  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'docchat-conversations-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('keeps the turn asked in a window that closed when the other window asks next (each window has its own workspaceState)', async () => {
    const setup = await openWindow();
    const c = setup.create();
    ask(c, 't1', 'How do I create a store?', 10);
    await saveNow(setup);
    const window1 = await openWindow();
    const window2 = await openWindow();
    ask(window2.get(c.id)!, 't2', 'How do I delete a store?', 20);
    await saveNow(window2);
    ask(window1.get(c.id)!, 't3', 'How do I rename a store?', 30);
    await saveNow(window1);
    assert.deepEqual(questions((await openWindow()).get(c.id)), [
      'How do I create a store?',
      'How do I delete a store?',
      'How do I rename a store?',
    ]);
  });

  it('shows another window’s turn when this window refreshes (coming back to it), and reports no change when there is none', async () => {
    const window1 = await openWindow();
    const c = window1.create();
    ask(c, 't1', 'First', 1);
    await saveNow(window1);
    const window2 = await openWindow();
    ask(window2.get(c.id)!, 't2', 'From window 2', 5);
    await saveNow(window2);
    assert.equal(await window1.refresh(), true);
    assert.deepEqual(questions(window1.get(c.id)), ['First', 'From window 2']);
    assert.equal(await window1.refresh(), false, 'nothing new: the file is not read again');
  });

  it('starts from the conversations an older version kept in workspaceState, then writes the file', async () => {
    const legacy = new MemoryState();
    const old = new ConversationStore(legacy);
    ask(old.create(), 'o', 'Saved before', 1);
    await saveNow(old);
    const store = await openWindow(legacy);
    assert.deepEqual(questions(store.active()), ['Saved before']);
    ask(store.active(), 'n', 'Asked after', 2);
    await saveNow(store);
    assert.deepEqual(questions((await openWindow()).active()), ['Saved before', 'Asked after'], 'read from the file, not workspaceState');
    assert.equal(legacy.get('docchat.chat.conversations'), undefined, 'no second, ageing copy stays in workspaceState');
  });

  it('reads the file without blocking: an empty chat made meanwhile gives way to the conversation shown before', async () => {
    const before = await openWindow();
    const c = before.create();
    ask(c, 't', 'Shown before the reload', 1);
    before.create();
    before.activate(c.id);
    await saveNow(before);
    const store = new ConversationStore(new ConversationFile(folder, new MemoryState()));
    const early = store.active();
    assert.equal(early.messages.length, 0, 'nothing read yet');
    assert.equal(await store.opened, true, 'reading the file changed what the panel shows');
    assert.equal(store.active().id, c.id);
    assert.equal(store.get(early.id), undefined);
    assert.equal(store.summaries().length, 2, 'the saved conversations, and not the empty one made meanwhile');
  });

  it('keeps a damaged file aside instead of overwriting it', async () => {
    writeFileSync(path.join(folder, CONVERSATIONS_FILE), '{"docchat.chat.conversations": {"conversations": [', 'utf8');
    const warnings: string[] = [];
    const store = new ConversationStore(new ConversationFile(folder, new MemoryState(), (m) => warnings.push(m)));
    await store.opened;
    assert.equal(warnings.length, 1);
    ask(store.active(), 'n', 'New', 1);
    await saveNow(store);
    const kept = readdirSync(folder).filter((f) => f.startsWith(`${CONVERSATIONS_FILE}.damaged-`));
    assert.equal(kept.length, 1);
    assert.match(readFileSync(path.join(folder, kept[0]!), 'utf8'), /"conversations": \[$/);
    assert.deepEqual(questions((await openWindow()).active()), ['New']);
  });
});

describe("chat conversations: the folder of a workspace's file", () => {
  it('is one folder under global storage per workspace, whichever window asks', () => {
    const global = path.join(tmpdir(), 'global');
    const folder = conversationFolder(global, 'file:///home/me/handbook');
    assert.equal(path.dirname(folder), path.join(global, 'conversations'));
    assert.equal(conversationFolder(global, 'file:///home/me/handbook'), folder);
    assert.notEqual(conversationFolder(global, 'file:///home/me/notes'), folder);
    assert.notEqual(conversationFolder(global, 'file:///home/me/handbook.code-workspace'), folder);
  });
});
