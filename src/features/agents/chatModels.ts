import * as vscode from 'vscode';
import { DocChatError, errorSentence, isAbortError } from '../../api/http/errors';
import type { ChatMessage, ModelInfo } from '../../api/gateway/schemas';
import { MODEL_LIST_TTL_MS } from '../../chatCore/modelCatalog';
import { Disposable, toDisposable } from '../../common/lifecycle';
import type { Services } from '../../services';
import { requireGateway } from '../../services/commands';
import { toChatError } from '../chat';
import { agentModels, estimateTokens, listBeforeUse, pickerModels, refusesTools, takesNoTools } from './modelInfo';
import { StateKeys } from '../../common/constants';

/** Must match `contributes.languageModelChatProviders[].vendor` in package.json. */
export const MODEL_VENDOR = 'docchat';
const REFUSED_TOOLS_KEY = StateKeys.agentsRefusedTools;
const MODEL_LIST_KEY = StateKeys.agentsModelList;

interface CachedModels {
  origin: string;
  fetchedAt: number;
  list: ModelInfo[];
}

/** One VS Code message as gateway messages: tool results become `tool` messages before it. */
function toGatewayMessages(message: vscode.LanguageModelChatRequestMessage): ChatMessage[] {
  const assistant = message.role === vscode.LanguageModelChatMessageRole.Assistant;
  let text = '';
  const toolCalls: unknown[] = [];
  const results: ChatMessage[] = [];
  for (const part of message.content) {
    if (part instanceof vscode.LanguageModelTextPart) {
      text += part.value;
    } else if (part instanceof vscode.LanguageModelToolCallPart) {
      toolCalls.push({ id: part.callId, type: 'function', function: { name: part.name, arguments: JSON.stringify(part.input ?? {}) } });
    } else if (part instanceof vscode.LanguageModelToolResultPart) {
      const content = part.content
        .map((c) =>
          c instanceof vscode.LanguageModelTextPart
            ? c.value
            : c instanceof vscode.LanguageModelPromptTsxPart
              ? JSON.stringify(c.value)
              : '',
        )
        .join('');
      results.push({ role: 'tool', tool_call_id: part.callId, content });
    }
  }
  const own: ChatMessage[] =
    text || toolCalls.length
      ? [{ role: assistant ? 'assistant' : 'user', content: text, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }]
      : [];
  return [...results, ...own];
}

function messageText(message: string | vscode.LanguageModelChatRequestMessage): string {
  return typeof message === 'string'
    ? message
    : toGatewayMessages(message)
        .map((m) => JSON.stringify(m))
        .join('\n');
}

/** The sentence for an action the UI would offer as a button. */
function actionSentence(action: string): string | undefined {
  switch (action) {
    case 'setGatewayApiKey':
      return vscode.l10n.t('Run "DocChat: Set Gateway API Key" to set a new key.');
    case 'retry':
      return vscode.l10n.t('Send the request again to retry.');
    default:
      return undefined;
  }
}

/**
 * The gateway's completion models in VS Code's model picker, for any chat or extension
 * (`vscode.lm.selectChatModels({ vendor: 'docchat' })`): answers stream through the gateway with
 * the user's API key and project code, cancellation stops the request, tool calls pass through in
 * the chat-completions format. In Local mode the local backend lists its own model and those of a
 * connected model server. Until DocChat is used in the window, only the last list is shown and
 * nothing starts.
 */
export class DocChatModelProvider extends Disposable implements vscode.LanguageModelChatProvider {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeLanguageModelChatInformation = this._onDidChange.event;
  private loading: Promise<ModelInfo[]> | undefined;

  constructor(
    private readonly services: Services,
    private readonly state: vscode.Memento,
  ) {
    super();
    this._register(services.connection.onDidChange(() => this._onDidChange.fire()));
    // The gateway refreshes its model list from time to time: ask VS Code to look again hourly.
    const refresh = setInterval(() => {
      if (services.connection.used) this._onDidChange.fire();
    }, MODEL_LIST_TTL_MS);
    refresh.unref?.();
    this._register(toDisposable(() => clearInterval(refresh)));
  }

  private get refusedTools(): Set<string> {
    return new Set(this.state.get<string[]>(REFUSED_TOOLS_KEY) ?? []);
  }

  private origin(): string {
    const s = this.services.connection.state;
    return s.kind === 'local' || s.kind === 'remote' ? `${s.kind}:${this.services.config.current.gatewayUrl || s.url}` : s.kind;
  }

  async provideLanguageModelChatInformation(
    options: vscode.PrepareLanguageModelChatModelOptions,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelChatInformation[]> {
    const cached = this.state.get<CachedModels>(MODEL_LIST_KEY);
    // Asked silently before DocChat is used in this window: the last list, and nothing starts.
    if (!this.services.connection.used && options.silent) return this.describe(listBeforeUse(cached?.list, this.localGateway()));
    await this.services.connection.use('the DocChat language models');
    const gateway = this.services.connection.gateway;
    if (!gateway) return this.describe(cached?.list ?? []);
    const origin = this.origin();
    if (cached && cached.origin === origin && Date.now() - cached.fetchedAt < MODEL_LIST_TTL_MS) return this.describe(cached.list);
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    this.loading ??= gateway.listCompletionModels({ signal: abort.signal }).finally(() => (this.loading = undefined));
    try {
      const list = await this.loading;
      await this.state.update(MODEL_LIST_KEY, { origin, fetchedAt: Date.now(), list } satisfies CachedModels);
      return this.describe(list);
    } catch (error) {
      this.services.log.child('models').warn(`Could not list the gateway's models: ${errorSentence(error)}`);
      return this.describe(cached?.list ?? []);
    } finally {
      listener.dispose();
    }
  }

  /** Local mode's backend answers the chat (no gateway or documents URL: see planConnection). */
  private localGateway(): boolean {
    const { gatewayUrl, documentsUrl } = this.services.config.current;
    return !gatewayUrl && !documentsUrl;
  }

  private describe(list: readonly ModelInfo[]): vscode.LanguageModelChatInformation[] {
    const local = this.services.connection.state.kind === 'local' || this.localGateway();
    return pickerModels(agentModels(list, this.refusedTools)).map((m) => ({
      ...m,
      detail: local ? vscode.l10n.t('DocChat (local)') : vscode.l10n.t('DocChat gateway'),
    }));
  }

  async provideLanguageModelChatResponse(
    model: vscode.LanguageModelChatInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    await this.services.connection.use('a DocChat language model');
    const gateway = requireGateway(this.services.connection);
    const withTools = model.capabilities.toolCalling !== false && !takesNoTools(model.id) && (options.tools?.length ?? 0) > 0;
    const tools = withTools
      ? options.tools!.map((t) => ({
          type: 'function',
          function: { name: t.name, description: t.description, parameters: t.inputSchema ?? { type: 'object', properties: {} } },
        }))
      : undefined;
    const temperature = options.modelOptions?.temperature;
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    const calls = new Map<number, { id?: string; name?: string; args: string }>();
    try {
      const stream = gateway.streamChatCompletion(
        {
          model: model.id,
          messages: messages.flatMap(toGatewayMessages),
          ...(tools
            ? { tools, ...(options.toolMode === vscode.LanguageModelChatToolMode.Required ? { tool_choice: 'required' } : {}) }
            : {}),
          ...(typeof temperature === 'number' ? { temperature } : {}),
        },
        { signal: abort.signal },
      );
      for await (const part of stream) {
        if (part.content) progress.report(new vscode.LanguageModelTextPart(part.content));
        for (const delta of part.toolCalls ?? []) {
          const call = calls.get(delta.index) ?? { args: '' };
          call.id ??= delta.id;
          call.name ??= delta.name;
          call.args += delta.arguments ?? '';
          calls.set(delta.index, call);
        }
      }
      for (const [index, call] of calls) {
        progress.report(new vscode.LanguageModelToolCallPart(call.id ?? `call_${index}`, call.name ?? '', this.toolInput(model.id, call)));
      }
    } catch (error) {
      throw await this.failure(error, model, withTools);
    } finally {
      listener.dispose();
    }
  }

  private toolInput(model: string, call: { name?: string; args: string }): object {
    try {
      const value: unknown = call.args.trim() ? JSON.parse(call.args) : {};
      if (value && typeof value === 'object') return value;
    } catch {
      // reported below
    }
    throw new Error(
      vscode.l10n.t(
        'The model {0} called the tool {1} with arguments that are not a JSON object. Send the request again to retry.',
        model,
        call.name ?? '?',
      ),
    );
  }

  /** The UI's sentence and way forward for a failed answer; a refusal of tools is remembered. */
  private async failure(error: unknown, model: vscode.LanguageModelChatInformation, withTools: boolean): Promise<Error> {
    if (isAbortError(error)) return new vscode.CancellationError();
    const info = toChatError(error, 'gateway', model.id);
    const sentences = [info.message, ...info.actions.map(actionSentence).filter((s): s is string => !!s)];
    if (withTools && error instanceof DocChatError && refusesTools(error)) {
      await this.state.update(REFUSED_TOOLS_KEY, [...this.refusedTools, model.id]);
      this._onDidChange.fire();
      sentences.push(vscode.l10n.t('The model {0} does not take tools, so DocChat no longer offers it for tool calling.', model.id));
    }
    if (error instanceof DocChatError && error.kind === 'auth') {
      this.services.errors.report(error, vscode.l10n.t('DocChat: the gateway refused a request for the model {0}.', model.id), {
        service: 'gateway',
      });
    } else {
      this.services.log.child('models').warn(`${model.id}: ${info.message}`);
    }
    return new Error(sentences.join(' '));
  }

  async provideTokenCount(
    _model: vscode.LanguageModelChatInformation,
    text: string | vscode.LanguageModelChatRequestMessage,
  ): Promise<number> {
    return estimateTokens(messageText(text));
  }
}
