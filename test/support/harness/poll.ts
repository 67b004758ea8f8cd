/**
 * Waits for a state that gives no event to wait on: a store's files in the backend process, or
 * another process having exited. Reads it again a short pause after each answer until it holds or
 * the deadline passes. The one place in the test helpers that re-reads on a timer.
 */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  holds: (value: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; what: string },
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`${options.what} never happened; last seen: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 300));
  }
}
