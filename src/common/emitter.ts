/**
 * A small event emitter without `vscode`, for plain TypeScript components (the chat session) whose
 * owner in a feature folder listens. Listeners are removed by disposing what `event` returns.
 */
export type Listener<T> = (value: T) => void;

export interface Subscription {
  dispose(): void;
}

export class Emitter<T> {
  private readonly listeners = new Set<Listener<T>>();

  readonly event = (listener: Listener<T>): Subscription => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  dispose(): void {
    this.listeners.clear();
  }
}
