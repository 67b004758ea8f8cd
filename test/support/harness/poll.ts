/**
 * Waits for a state only a request can show (e.g. a store's files on the service): asks again
 * after each answer, a short pause apart, until it holds or the deadline passes.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  holds: (value: T) => boolean,
  options: { timeoutMs?: number; what: string },
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`${options.what} never happened; last seen: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
