/**
 * The model server Local mode forwards chat to, as kept in globalState. Apart from modelServers.ts
 * so that DocChat can make it at activation without loading zod: the stored value is checked with
 * zod when it is first read.
 */
import { atFirstUse } from '../common/atFirstUse';
import type * as ModelServers from './modelServers';
import { StateKeys } from '../common/constants';
import { ModelRefusals, type UnavailableModel } from '../chatCore/modelCatalog';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const modelServers = atFirstUse(() => require('./modelServers') as typeof ModelServers);

/** The server Local mode forwards chat to, as kept in globalState (its key is in SecretStorage). */
export interface ModelServerChoice {
  /** OpenAI-compatible base URL ending in `/v1`. */
  url: string;
  /** The model new chats start with. */
  model: string;
  name: string;
  hasKey: boolean;
}

const CHOICE_KEY = StateKeys.modelServer;

export class ModelServerMemory {
  /**
   * Models whose server does not answer, with the reason: the chat's model list and "Use a
   * Language Model…" mark them until the server answers again. Not kept.
   */
  readonly unavailable = new Map<string, UnavailableModel>();
  /** Models a server refused for chat this session, per server and model (see `ModelRefusals`). */
  readonly refusals = new ModelRefusals();

  private readonly followers = new Set<(choice: ModelServerChoice | undefined) => void>();

  /**
   * The user chose a model with "Use a Language Model…" (undefined: stopped using one), once
   * DocChat's connection forwards chat to it: the chat follows the choice.
   */
  onDidChoose(listener: (choice: ModelServerChoice | undefined) => void): { dispose(): void } {
    this.followers.add(listener);
    return { dispose: () => this.followers.delete(listener) };
  }

  /** Tells the chat that the user chose `choice` (see `onDidChoose`). */
  announce(choice: ModelServerChoice | undefined): void {
    for (const listener of [...this.followers]) listener(choice);
  }

  constructor(
    private readonly state: { get<T>(key: string): T | undefined; update(key: string, value: unknown): Thenable<void> | Promise<void> },
  ) {}

  get choice(): ModelServerChoice | undefined {
    return modelServers().parseModelServerChoice(this.state.get(CHOICE_KEY));
  }

  async set(choice: ModelServerChoice | undefined): Promise<void> {
    await this.state.update(CHOICE_KEY, choice);
  }
}
