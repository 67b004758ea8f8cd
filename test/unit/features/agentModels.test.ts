/** What VS Code's model picker is told about the gateway's models. */
import * as assert from 'node:assert/strict';
import { LEGACY_INFERENCE_MODELS } from '../../../src/api/gateway/schemas';
import {
  agentModels,
  DEFAULT_MAX_INPUT_TOKENS,
  estimateTokens,
  listBeforeUse,
  pickerModels,
  refusesTools,
  takesNoTools,
} from '../../../src/features/agents/modelInfo';

describe('models offered to agents', () => {
  it('offers the completion models, not the deprecated inference ones', () => {
    const list = [{ id: 'alpha-5-mini' }, { id: LEGACY_INFERENCE_MODELS[0]! }, { id: 'old', deprecated: true }, { id: 'alpha-5-mini' }];
    assert.deepEqual(
      agentModels(list, new Set()).map((m) => m.id),
      ['alpha-5-mini'],
    );
  });

  it('reports tool calling as the list says, else as no refusal was seen', () => {
    const list = [
      { id: 'says-no', capabilities: { tool_calling: false } },
      { id: 'says-yes', supports_tools: true },
      { id: 'silent' },
      { id: 'refused' },
    ];
    const tools = Object.fromEntries(agentModels(list, new Set(['refused', 'says-yes'])).map((m) => [m.id, m.capabilities.toolCalling]));
    assert.deepEqual(tools, { 'says-no': false, 'says-yes': true, silent: true, refused: false });
  });

  it('reads the context window when the list gives one', () => {
    const [given, unknown] = agentModels(
      [
        { id: 'a', context_window: 32_000 },
        { id: 'b', context_window: null },
      ],
      new Set(),
    );
    assert.equal(given!.maxInputTokens, 32_000);
    assert.ok(given!.maxOutputTokens <= 32_000);
    assert.equal(unknown!.maxInputTokens, DEFAULT_MAX_INPUT_TOKENS);
  });

  it('counts about four characters a token and recognises a refusal of tools', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcde'), 2);
    assert.equal(refusesTools({ kind: 'validation', message: 'This model does not support tools.' }), true);
    assert.equal(refusesTools({ kind: 'auth', message: 'tools' }), false);
    assert.equal(refusesTools({ kind: 'validation', message: 'messages must not be empty.' }), false);
  });

  it("offers local-extractive in VS Code's Agent mode (the only mode without Copilot), and never sends it tools", () => {
    const models = pickerModels(
      agentModels(
        [
          { id: 'local-extractive', capabilities: { tool_calling: false } },
          { id: 'llama3.2', capabilities: { tool_calling: false } },
        ],
        new Set(),
      ),
    );
    const byId = Object.fromEntries(models.map((m) => [m.id, m]));
    // VS Code 1.139 lists a model in Agent mode only when it declares tool calling.
    assert.equal(byId['local-extractive']!.capabilities.toolCalling, true);
    assert.match(byId['local-extractive']!.tooltip ?? '', /calls no tools.*@docchat without GitHub Copilot/);
    assert.equal(takesNoTools('local-extractive'), true, 'its requests carry no tools');
    assert.equal(byId['llama3.2']!.capabilities.toolCalling, false, 'another model is described as its list says');
    assert.equal(takesNoTools('llama3.2'), false);
  });

  it("names Local mode's model before DocChat is used in the window (nothing starts), else the last list", () => {
    assert.deepEqual(
      listBeforeUse(undefined, true).map((m) => m.id),
      ['local-extractive'],
    );
    assert.deepEqual(listBeforeUse(undefined, false), [], "a gateway's models are not known before it is asked");
    assert.deepEqual(
      listBeforeUse([{ id: 'alpha-5-mini' }] as never, true).map((m) => m.id),
      ['alpha-5-mini'],
    );
  });
});
