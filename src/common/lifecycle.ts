/** What VS Code's `Disposable` is, declared here so this folder never imports `vscode`. */
export interface DisposableLike {
  dispose(): unknown;
}

/**
 * Owns disposables and releases them together, newest first, so that a feature
 * can never leak a listener it registered.
 */
export abstract class Disposable implements DisposableLike {
  private readonly _disposables: DisposableLike[] = [];
  private _isDisposed = false;

  protected get isDisposed(): boolean {
    return this._isDisposed;
  }

  protected _register<T extends DisposableLike>(disposable: T): T {
    if (this._isDisposed) {
      disposable.dispose();
    } else {
      this._disposables.push(disposable);
    }
    return disposable;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    disposeAll(this._disposables);
  }
}

export function disposeAll(disposables: DisposableLike[]): void {
  while (disposables.length) {
    try {
      disposables.pop()?.dispose();
    } catch {
      // One failing disposal must not keep the others alive.
    }
  }
}

export function toDisposable(dispose: () => void): DisposableLike {
  return { dispose };
}
