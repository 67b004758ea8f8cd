import * as vscode from 'vscode';
import { SecretKeys, type SecretKey } from '../common/constants';
import { Disposable } from '../common/lifecycle';

const KNOWN = new Set<string>(Object.values(SecretKeys));

/**
 * DocChat's secrets, kept only in SecretStorage. Reacts to changes made by any window
 * (SecretStorage fires `onDidChange` across windows of the same profile).
 */
export class SecretsService extends Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<SecretKey>());
  readonly onDidChange = this._onDidChange.event;

  constructor(private readonly storage: vscode.SecretStorage) {
    super();
    this._register(
      storage.onDidChange((e) => {
        if (KNOWN.has(e.key)) {
          this._onDidChange.fire(e.key as SecretKey);
        }
      }),
    );
  }

  async get(key: SecretKey): Promise<string | undefined> {
    const value = await this.storage.get(key);
    return value ? value : undefined;
  }

  async set(key: SecretKey, value: string): Promise<void> {
    await this.storage.store(key, value);
  }

  async delete(key: SecretKey): Promise<void> {
    await this.storage.delete(key);
  }
}
