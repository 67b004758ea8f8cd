/**
 * DocChat's credentials live in VS Code's SecretStorage and nowhere else: `SecretsService` stores,
 * reads and deletes through it and passes on its change events (another window's sign-in or
 * sign-out) for DocChat's own keys only; the sign-in commands store what the user pasted, trimmed,
 * from a password box, and Sign Out removes both credentials. The real service and commands run
 * here with `vscode` faked and SecretStorage replaced by a recording map.
 */
import * as assert from 'node:assert/strict';
import path from 'node:path';
import { Commands, SecretKeys, Settings, SETTINGS_SECTION } from '../../../src/common/constants';
import type * as AuthModule from '../../../src/features/auth';
import type * as SecretsModule from '../../../src/services/secrets';
import { FakeEventEmitter, useFakeVscode, type FakeVscodeScope } from '../../support/fakeVscode';

const SRC = path.resolve(__dirname, '../../../src');

/** SecretStorage as VS Code gives it: a map per extension, with a change event per key. */
class RecordingSecretStorage {
  readonly values = new Map<string, string>();
  readonly calls: string[] = [];
  readonly changes = new FakeEventEmitter<{ key: string }>();
  readonly onDidChange = this.changes.event;
  failWith: Error | undefined;

  async get(key: string) {
    this.calls.push(`get ${key}`);
    if (this.failWith) throw this.failWith;
    return this.values.get(key);
  }
  async store(key: string, value: string) {
    this.calls.push(`store ${key}`);
    if (this.failWith) throw this.failWith;
    this.values.set(key, value);
    this.changes.fire({ key });
  }
  async delete(key: string) {
    this.calls.push(`delete ${key}`);
    if (this.failWith) throw this.failWith;
    this.values.delete(key);
    this.changes.fire({ key });
  }
  async keys() {
    return [...this.values.keys()];
  }
}

interface InputBoxOptions {
  title?: string;
  prompt?: string;
  placeHolder?: string;
  password?: boolean;
  ignoreFocusOut?: boolean;
  validateInput?: (value: string) => string | undefined;
}

/** What the secrets service and the sign-in commands use of `vscode`, recording what the user is shown. */
function fakeVscode() {
  const seen = {
    inputBoxes: [] as InputBoxOptions[],
    /** What the user types in the next input box (undefined: Escape). */
    typed: undefined as string | undefined,
    infos: [] as { message: string; actions: string[] }[],
    /** The action the user picks on the next information message. */
    choice: undefined as string | undefined,
    executed: [] as unknown[][],
    commands: new Map<string, (...args: unknown[]) => Promise<void>>(),
    remoteName: undefined as string | undefined,
  };
  const vscode = {
    EventEmitter: FakeEventEmitter,
    Disposable: class Disposable {
      constructor(private readonly onDispose: () => void) {}
      dispose() {
        this.onDispose();
      }
    },
    l10n: { t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)])) },
    env: {
      get remoteName() {
        return seen.remoteName;
      },
    },
    window: {
      showInputBox: async (options: InputBoxOptions) => {
        seen.inputBoxes.push(options);
        return seen.typed;
      },
      showInformationMessage: async (message: string, ...actions: string[]) => {
        seen.infos.push({ message, actions });
        return seen.choice;
      },
    },
    commands: {
      registerCommand: (id: string, run: (...args: unknown[]) => Promise<void>) => {
        seen.commands.set(id, run);
        return { dispose: () => seen.commands.delete(id) };
      },
      executeCommand: async (...args: unknown[]) => {
        seen.executed.push(args);
        return undefined;
      },
    },
  };
  return { vscode, seen };
}

describe('secrets and sign-in (SecretStorage only)', () => {
  let scope: FakeVscodeScope;
  let seen: ReturnType<typeof fakeVscode>['seen'];
  let storage: RecordingSecretStorage;
  let service: SecretsModule.SecretsService;
  let auth: typeof AuthModule;

  beforeEach(() => {
    const fake = fakeVscode();
    seen = fake.seen;
    scope = useFakeVscode(fake.vscode);
    const { SecretsService } = scope.load<typeof SecretsModule>(path.join(SRC, 'services/secrets'));
    auth = scope.load<typeof AuthModule>(path.join(SRC, 'features/auth'));
    storage = new RecordingSecretStorage();
    service = new SecretsService(storage as never);
  });

  afterEach(() => {
    service.dispose();
    scope.dispose();
  });

  describe('SecretsService', () => {
    it('stores, reads and deletes through SecretStorage', async () => {
      await service.set(SecretKeys.documentsToken, 'tok-1');
      assert.equal(storage.values.get(SecretKeys.documentsToken), 'tok-1');
      assert.equal(await service.get(SecretKeys.documentsToken), 'tok-1');

      await service.delete(SecretKeys.documentsToken);
      assert.equal(storage.values.has(SecretKeys.documentsToken), false);
      assert.equal(await service.get(SecretKeys.documentsToken), undefined);
      assert.deepEqual(storage.calls, [
        `store ${SecretKeys.documentsToken}`,
        `get ${SecretKeys.documentsToken}`,
        `delete ${SecretKeys.documentsToken}`,
        `get ${SecretKeys.documentsToken}`,
      ]);
    });

    it('reads an empty stored value as no secret', async () => {
      storage.values.set(SecretKeys.gatewayApiKey, '');
      assert.equal(await service.get(SecretKeys.gatewayApiKey), undefined);
    });

    it("passes on SecretStorage's errors instead of losing them", async () => {
      storage.failWith = new Error('The keychain is locked');
      await assert.rejects(service.set(SecretKeys.documentsToken, 'tok'), /The keychain is locked/);
      await assert.rejects(service.delete(SecretKeys.documentsToken), /The keychain is locked/);
      await assert.rejects(service.get(SecretKeys.documentsToken), /The keychain is locked/);
    });

    it("fires a change for each of DocChat's keys changed in any window, and for no other key", () => {
      const changed: string[] = [];
      service.onDidChange((key) => changed.push(key));
      // Another window of the profile signs in, then out; an unknown key (an older version's) changes too.
      storage.changes.fire({ key: SecretKeys.documentsToken });
      storage.changes.fire({ key: 'docchat.someOtherKey' });
      storage.changes.fire({ key: SecretKeys.gatewayApiKey });
      storage.changes.fire({ key: SecretKeys.modelServerKey });
      assert.deepEqual(changed, [SecretKeys.documentsToken, SecretKeys.gatewayApiKey, SecretKeys.modelServerKey]);
    });

    it('stops passing on changes once disposed', () => {
      const changed: string[] = [];
      service.onDidChange((key) => changed.push(key));
      service.dispose();
      storage.changes.fire({ key: SecretKeys.documentsToken });
      assert.deepEqual(changed, []);
    });
  });

  describe('validateCredential', () => {
    it('asks for a value when the box is empty or blank', () => {
      assert.equal(auth.validateCredential(''), 'Enter a value, or press Escape to cancel.');
      assert.equal(auth.validateCredential('  \t'), 'Enter a value, or press Escape to cancel.');
    });

    it('refuses a value with spaces or line breaks inside, without echoing it', () => {
      for (const value of ['abc def', 'abc\ndef', ' abc\tdef ']) {
        const message = auth.validateCredential(value);
        assert.equal(message, 'A token has no spaces or line breaks; check what was pasted.');
        assert.ok(!message.includes('abc'), 'the message does not repeat the secret');
      }
    });

    it('accepts a token, surrounding whitespace included (it is trimmed when stored)', () => {
      assert.equal(auth.validateCredential('tok-123'), undefined);
      assert.equal(auth.validateCredential('  tok-123\n'), undefined);
    });
  });

  describe('sign-in commands', () => {
    const infos: string[] = [];
    let connectionKind: string;
    let documentsUrl: string;
    let reported: { error: unknown; failure: string }[];

    beforeEach(() => {
      infos.length = 0;
      connectionKind = 'remote';
      documentsUrl = 'https://docs.example.com';
      reported = [];
      const services = {
        secrets: service,
        errors: { report: (error: unknown, failure: string) => reported.push({ error, failure }) },
        log: { info: (line: string) => infos.push(line) },
        connection: {
          get state() {
            return { kind: connectionKind };
          },
        },
        config: {
          get current() {
            return { documentsUrl };
          },
        },
      };
      auth.register({ subscriptions: [] } as never, services as never);
    });

    const run = (id: string) => {
      const command = seen.commands.get(id);
      assert.ok(command, `${id} is registered`);
      return command();
    };

    it('stores the pasted documents token, trimmed, from a password box that does not close on focus loss', async () => {
      seen.typed = '  tok-abc \n';
      await run(Commands.setDocumentsToken);
      assert.equal(storage.values.get(SecretKeys.documentsToken), 'tok-abc');
      assert.deepEqual(reported, []);
      const box = seen.inputBoxes[0]!;
      assert.equal(box.password, true);
      assert.equal(box.ignoreFocusOut, true);
      assert.equal(box.title, 'DocChat: Set Documents Token');
      assert.equal(box.prompt, "The bearer token for the documents service. It is kept in VS Code's secret storage only.");
      assert.equal(box.placeHolder, 'Paste the access token');
      assert.equal(box.validateInput, auth.validateCredential);
      assert.deepEqual(infos, [`${SecretKeys.documentsToken} updated`], 'the log names the key, never the value');
      assert.deepEqual(seen.infos, [], 'connected to a documents service: nothing more to say');
    });

    it('stores the pasted gateway API key under its own key', async () => {
      seen.typed = 'key-xyz';
      await run(Commands.setGatewayApiKey);
      assert.equal(storage.values.get(SecretKeys.gatewayApiKey), 'key-xyz');
      assert.equal(storage.values.has(SecretKeys.documentsToken), false);
      const box = seen.inputBoxes[0]!;
      assert.equal(box.password, true);
      assert.equal(box.title, 'DocChat: Set Gateway API Key');
      assert.equal(box.prompt, "The API key for the language-model gateway. It is kept in VS Code's secret storage only.");
      assert.equal(box.placeHolder, 'Paste the API key');
    });

    for (const kind of ['remote', 'local']) {
      it(`stores nothing and says nothing when the user presses Escape (${kind})`, async () => {
        connectionKind = kind;
        storage.values.set(SecretKeys.documentsToken, 'old');
        seen.typed = undefined;
        await run(Commands.setDocumentsToken);
        assert.equal(storage.values.get(SecretKeys.documentsToken), 'old');
        assert.deepEqual(
          storage.calls.filter((c) => !c.startsWith('get')),
          [],
        );
        assert.deepEqual(infos, []);
        assert.deepEqual(seen.infos, [], 'no "DocChat saved the token" for a token not saved');
      });
    }

    for (const [name, kind, url] of [
      ['in Local mode', 'local', 'https://docs.example.com'],
      ['with no documents URL', 'remote', ''],
    ] as const) {
      it(`says where a saved documents token is used ${name}, and opens that setting on request`, async () => {
        connectionKind = kind;
        documentsUrl = url;
        seen.typed = 'tok';
        seen.choice = 'Open Settings';
        await run(Commands.setDocumentsToken);
        assert.equal(storage.values.get(SecretKeys.documentsToken), 'tok');
        assert.deepEqual(seen.infos, [
          {
            message:
              'DocChat saved the token. It is used once "DocChat › Documents: Url" points to your documents service; Local mode needs no token.',
            actions: ['Open Settings'],
          },
        ]);
        assert.deepEqual(seen.executed, [['workbench.action.openSettings', `${SETTINGS_SECTION}.${Settings.documentsUrl}`]]);
      });
    }

    it('leaves the settings closed when the user dismisses that message', async () => {
      connectionKind = 'local';
      seen.typed = 'tok';
      seen.choice = undefined;
      await run(Commands.setDocumentsToken);
      assert.equal(seen.infos.length, 1);
      assert.deepEqual(seen.executed, []);
    });

    for (const [id, failure] of [
      [Commands.setDocumentsToken, 'DocChat: could not set the documents token.'],
      [Commands.setGatewayApiKey, 'DocChat: could not set the gateway API key.'],
      [Commands.signOut, 'DocChat: could not sign out.'],
    ] as const) {
      it(`${id}: reports a failure of SecretStorage once, saying what could not be done and why`, async () => {
        seen.typed = 'tok';
        storage.failWith = new Error('The keychain is locked');
        await run(id);
        assert.equal(reported.length, 1);
        assert.equal(reported[0]!.failure, failure);
        assert.match(String(reported[0]!.error), /The keychain is locked/);
        assert.deepEqual(infos, [], 'nothing claims the credentials changed');
        assert.deepEqual(seen.infos, []);
      });
    }

    for (const [kind, message] of [
      ['remote', 'DocChat: signed out.'],
      ['local', 'DocChat: tokens removed. Local mode keeps working without a token.'],
    ] as const) {
      it(`Sign Out removes the documents token and the gateway key (${kind}) and says so`, async () => {
        connectionKind = kind;
        storage.values.set(SecretKeys.documentsToken, 'tok');
        storage.values.set(SecretKeys.gatewayApiKey, 'key');
        storage.values.set(SecretKeys.modelServerKey, 'model-key');
        const changed: string[] = [];
        service.onDidChange((key) => changed.push(key));
        await run(Commands.signOut);
        assert.equal(storage.values.has(SecretKeys.documentsToken), false);
        assert.equal(storage.values.has(SecretKeys.gatewayApiKey), false);
        assert.equal(storage.values.get(SecretKeys.modelServerKey), 'model-key', "the model server's key is not a sign-in");
        assert.deepEqual(changed, [SecretKeys.documentsToken, SecretKeys.gatewayApiKey]);
        assert.deepEqual(infos, ['Signed out: documents token and gateway API key removed']);
        assert.deepEqual(
          seen.infos.map((i) => i.message),
          [message],
        );
        assert.deepEqual(reported, []);
      });
    }
  });
});
