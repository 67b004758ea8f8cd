/**
 * Performance marks of what the user feels in the chat (read by the latency benchmark through the
 * webview's own performance timeline): the key press that sends a question, the first paint that
 * shows answer text, the paint that shows the finished answer, and a conversation shown. Each
 * costs a `performance.mark` (and a posted task for "painted"), so they are always on.
 */

export const Marks = {
  send: 'docchat:send',
  firstText: 'docchat:first-text',
  firstTextPainted: 'docchat:first-text-painted',
  streamEnded: 'docchat:stream-ended',
  answerPainted: 'docchat:answer-painted',
  sourcesPainted: 'docchat:sources-painted',
  switchConversation: 'docchat:switch-conversation',
  conversationPainted: 'docchat:conversation-painted',
} as const;

const MAX_MARKS = 2_000;

/** Records a mark (at `startTime`, e.g. an input event's timeStamp, when given). */
export function mark(name: string, detail?: unknown, startTime?: number): void {
  try {
    if (typeof performance === 'undefined' || typeof performance.mark !== 'function') return;
    // A long session must not grow the timeline without bound.
    if (performance.getEntriesByType('mark').length >= MAX_MARKS) performance.clearMarks();
    performance.mark(name, { detail, ...(startTime !== undefined ? { startTime } : {}) });
  } catch {
    // Marks are for measuring only; they never break the chat.
  }
}

/**
 * Runs `callback` just after the next paint: from a frame callback (before paint), a task posted
 * then runs after that frame's paint; from anywhere else, it waits for the next frame first.
 */
export function afterPaint(callback: () => void, inFrame: boolean, requestFrame: (cb: () => void) => void): void {
  if (typeof MessageChannel === 'undefined') return;
  const post = () => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      callback();
    };
    channel.port2.postMessage(undefined);
  };
  if (inFrame) post();
  else requestFrame(post);
}
