/**
 * What VS Code's model picker is told about each of the gateway's completion models, from
 * `GET /v1/completions/models` (whose shape the service does not show: the usual fields are read
 * when present, documented defaults otherwise). No `vscode` import.
 */
import type { ModelInfo } from '../../api/gateway/schemas';
import * as l10n from '@vscode/l10n';
import { LOCAL_CHAT_MODEL } from '../../api/gateway/models';
import { isLegacyModel } from '../../chatCore/modelCatalog';

/** When the list says nothing: a context window and an answer length most of the gateway's models exceed. */
export const DEFAULT_MAX_INPUT_TOKENS = 128_000;
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

export interface AgentModel {
  id: string;
  name: string;
  family: string;
  version: string;
  tooltip?: string;
  maxInputTokens: number;
  maxOutputTokens: number;
  capabilities: { toolCalling: boolean; imageInput: boolean };
}

function positive(...values: unknown[]): number | undefined {
  for (const value of values) {
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.trunc(value);
  }
  return undefined;
}

function flag(...values: unknown[]): boolean | undefined {
  for (const value of values) {
    if (typeof value === 'boolean') return value;
  }
  return undefined;
}

/** Whether the list says the model takes tools: true, false, or undefined when it does not say. */
export function declaredToolCalling(info: ModelInfo): boolean | undefined {
  const capabilities = (info.capabilities && typeof info.capabilities === 'object' ? info.capabilities : {}) as Record<string, unknown>;
  return flag(
    capabilities.tool_calling,
    capabilities.tools,
    capabilities.function_calling,
    info.supports_tools,
    info.supports_tool_calling,
    info.tool_calling,
    info.function_calling,
  );
}

function deprecated(info: ModelInfo): boolean {
  return info.deprecated === true || info.status === 'deprecated' || isLegacyModel(info.id);
}

/**
 * The models offered to agents: the completion models, without the deprecated inference ones.
 * A model takes tools when its entry says so; when it says nothing, it does unless a request with
 * tools was refused before (`refusedTools`), so a refusal is reported once, not in every run.
 */
export function agentModels(list: readonly ModelInfo[], refusedTools: ReadonlySet<string>): AgentModel[] {
  const seen = new Set<string>();
  return list.flatMap((info): AgentModel[] => {
    if (typeof info.id !== 'string' || !info.id || seen.has(info.id) || deprecated(info)) return [];
    seen.add(info.id);
    const context = positive(info.max_input_tokens, info.context_window, info.context_length, info.max_context_tokens);
    const output = positive(info.max_output_tokens, info.max_completion_tokens);
    const name = typeof info.display_name === 'string' && info.display_name ? info.display_name : info.id;
    return [
      {
        id: info.id,
        name,
        family: info.id,
        version: String(info.version ?? info.created ?? '1'),
        ...(typeof info.description === 'string' && info.description ? { tooltip: info.description } : {}),
        maxInputTokens: context ?? DEFAULT_MAX_INPUT_TOKENS,
        maxOutputTokens: output ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, context ?? DEFAULT_MAX_OUTPUT_TOKENS),
        capabilities: {
          toolCalling: declaredToolCalling(info) ?? !refusedTools.has(info.id),
          imageInput: false,
        },
      },
    ];
  });
}

/** No tokenizer of the gateway's models is published: about four characters a token, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Whether a refusal names the tools (a model or gateway that does not take them). */
export function refusesTools(error: { kind?: string; message: string; param?: string; code?: string }): boolean {
  return error.kind === 'validation' && /tool|function/i.test(`${error.message} ${error.param ?? ''} ${error.code ?? ''}`);
}

/**
 * What VS Code's model picker is told. VS Code (1.139) runs a Chat view request, `@docchat`
 * included, only with a model picked in that picker (without GitHub Copilot it has no default
 * model), and in Agent mode, the only mode it offers without Copilot, the picker lists only
 * models that take tools. local-extractive takes none: it is offered for Agent mode all the same,
 * so that Local mode's model can be picked and `@docchat` can answer, and the tools VS Code sends
 * it are left out of the request (it answers by quoting, never by calling a tool).
 */
export function pickerModels(models: readonly AgentModel[]): AgentModel[] {
  return models.map((m) =>
    m.id === LOCAL_CHAT_MODEL
      ? {
          ...m,
          capabilities: { ...m.capabilities, toolCalling: true },
          tooltip: l10n.t(
            "DocChat's Local-mode model: it answers by quoting the passages of your vector store and calls no tools. Pick it to use @docchat without GitHub Copilot.",
          ),
        }
      : m,
  );
}

/** True when the model's requests never carry tools (it cannot call them). */
export function takesNoTools(modelId: string): boolean {
  return modelId === LOCAL_CHAT_MODEL;
}

/**
 * The list the picker shows before DocChat is used in the window (nothing starts): the last one,
 * else in Local mode its one model, which needs nothing started to be named.
 */
export function listBeforeUse(cached: readonly ModelInfo[] | undefined, localMode: boolean): ModelInfo[] {
  if (cached?.length) return [...cached];
  return localMode ? [{ id: LOCAL_CHAT_MODEL, object: 'model', created: 0, owned_by: 'docchat-local' }] : [];
}
