/**
 * The model server Local mode forwards chat to, as kept in globalState. Apart from modelServers.ts
 * so that DocChat can make it at activation without loading zod: the stored value is checked with
 * zod when it is first read.
 */
import { atFirstUse } from '../common/atFirstUse';
import type * as ModelServers from './modelServers';
import { StateKeys } from '../common/constants';
import type { UnavailableModel } from '../chatCore/modelCatalog';

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
   * Models found unusable this session (refused for chat, or their server does not answer), with
   * the reason: the chat's model list and "Use a Language Model…" mark them. Not kept.
   */
  readonly unavailable = new Map<string, UnavailableModel>();

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
