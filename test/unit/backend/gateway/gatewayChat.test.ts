import assert from 'node:assert/strict';
import { parseSse, startTestBackend, type TestBackend } from '../helpers';

const GROUNDED = [
  {
    role: 'system',
    content:
      'Answer from the sources and cite them.\n\n' +
      '[1] backup.md\nBackups run every night at 02:00. They are kept for thirty days. Restores need a ticket.\n\n' +
      '[2] vacation.md\nEmployees get twenty-five vacation days. Unused days expire in March.',
  },
  { role: 'user', content: 'How long are backups kept?' },
];

describe('backend: gateway chat with local-extractive', () => {
  let t: TestBackend;
  before(async () => {
    t = await startTestBackend();
  });
  after(async () => t.close());

  it('quotes the most relevant sentence with its citation', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', { model: 'local-extractive', messages: GROUNDED });
    assert.equal(reply.status, 200, reply.text);
    const body = reply.json;
    assert.match(body.id, /^chatcmpl-/);
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.model, 'local-extractive');
    assert.ok(Number.isInteger(body.created));
    assert.equal(body.choices[0].index, 0);
    assert.equal(body.choices[0].message.role, 'assistant');
    assert.equal(body.choices[0].finish_reason, 'stop');
    const content: string = body.choices[0].message.content;
    assert.match(content, /"They are kept for thirty days\." \[1\]/);
    assert.ok(!content.includes('vacation days'), 'the unrelated source is not quoted');
    assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
    assert.ok(body.usage.prompt_tokens > 0 && body.usage.completion_tokens > 0);
  });

  it('recognises other source formats and a question inside the user message', async () => {
    const content =
      'Source 1: payroll.md\nSalaries are paid on the 25th.\n\n<source id="2">\nExpenses are reimbursed within ten days.\n</source>\n\nQuestion: When are expenses reimbursed?';
    const reply = await t.gw('POST', '/v1/completions', { model: 'local-extractive', messages: [{ role: 'user', content }] });
    assert.match(reply.json.choices[0].message.content, /"Expenses are reimbursed within ten days\." \[2\]/);
  });

  it('says plainly what it is when no sources are given', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', {
      model: 'local-extractive',
      messages: [{ role: 'user', content: 'Write a poem' }],
    });
    const content: string = reply.json.choices[0].message.content;
    assert.match(content, /I am local-extractive/);
    assert.match(content, /do not generate text/);
    assert.ok(!/alpha|beta|gamma|GPT|Claude/i.test(content), 'never claims to be a company model');
  });

  it('says when no source matches', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', {
      model: 'local-extractive',
      messages: [GROUNDED[0], { role: 'user', content: 'quantum chromodynamics' }],
    });
    assert.match(
      reply.json.choices[0].message.content,
      /^The supplied documents do not cover this question, so local-extractive has nothing to quote\./,
    );
  });

  it('streams OpenAI-style SSE: role first, deltas, finish_reason, usage chunk, [DONE]', async () => {
    const whole = await t.gw('POST', '/v1/chat/completions', { model: 'local-extractive', messages: GROUNDED });
    const reply = await t.gw(
      'POST',
      '/v1/chat/completions',
      { model: 'local-extractive', messages: GROUNDED, stream: true },
      { 'api-key': 'test-gateway-key', 'x-project-code': 'P-77' },
    );
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^text\/event-stream/);
    assert.equal(reply.headers['x-project-code'], 'P-77');
    const events = parseSse(reply.text);
    assert.equal(events.at(-1)!.data, '[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    assert.ok(chunks.length > 4);
    const ids = new Set(chunks.map((c) => c.id));
    assert.equal(ids.size, 1);
    for (const chunk of chunks) {
      assert.equal(chunk.object, 'chat.completion.chunk');
      assert.equal(chunk.model, 'local-extractive');
    }
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
    const usageChunk = chunks.at(-1);
    assert.deepEqual(usageChunk.choices, []);
    assert.ok(usageChunk.usage.total_tokens > 0);
    const finishChunk = chunks.at(-2);
    assert.equal(finishChunk.choices[0].finish_reason, 'stop');
    assert.ok(chunks.slice(0, -2).every((c) => c.choices[0].finish_reason === null));
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    assert.equal(text, whole.json.choices[0].message.content);
  });

  it('stops at max_completion_tokens with finish_reason "length"', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', { model: 'local-extractive', messages: GROUNDED, max_completion_tokens: 5 });
    assert.equal(reply.json.choices[0].finish_reason, 'length');
    assert.ok(reply.json.choices[0].message.content.length <= 20);
    assert.ok(reply.json.usage.completion_tokens <= 5);
  });

  it('accepts X-Project-Code; blank means NA', async () => {
    const reply = await t.gw(
      'POST',
      '/v1/chat/completions',
      { model: 'local-extractive', messages: GROUNDED },
      { 'api-key': 'test-gateway-key', 'x-project-code': '  ' },
    );
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['x-project-code'], 'NA');
  });

  it('leaves the temperature range to the model: 2.5 is accepted (only a negative one is refused)', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', { model: 'local-extractive', messages: GROUNDED, temperature: 2.5 });
    assert.equal(reply.status, 200, reply.text);
    assert.match(reply.json.choices[0].message.content, /thirty days/);
  });

  it('ends the answer before a stop sequence, whole and streamed', async () => {
    const whole = await t.gw('POST', '/v1/chat/completions', { model: 'local-extractive', messages: GROUNDED, stop: 'thirty' });
    assert.equal(whole.status, 200, whole.text);
    const content: string = whole.json.choices[0].message.content;
    assert.match(content, /They are kept for $/);
    assert.equal(whole.json.choices[0].finish_reason, 'stop');
    const streamed = await t.gw('POST', '/v1/chat/completions', {
      model: 'local-extractive',
      messages: GROUNDED,
      stop: ['nothing like this', 'thirty'],
      stream: true,
    });
    const text = parseSse(streamed.text)
      .slice(0, -1)
      .map((e) => JSON.parse(e.data).choices[0]?.delta?.content ?? '')
      .join('');
    assert.equal(text, content);
  });

  it('ends a stream with the usage chunk unless stream_options.include_usage is false', async () => {
    const usageChunks = async (streamOptions?: object) => {
      const reply = await t.gw('POST', '/v1/chat/completions', {
        model: 'local-extractive',
        messages: GROUNDED,
        stream: true,
        ...(streamOptions ? { stream_options: streamOptions } : {}),
      });
      const events = parseSse(reply.text);
      assert.equal(events.at(-1)!.data, '[DONE]');
      return events.slice(0, -1).filter((e) => JSON.parse(e.data).usage !== undefined).length;
    };
    assert.equal(await usageChunks(), 1);
    assert.equal(await usageChunks({ include_usage: true }), 1);
    assert.equal(await usageChunks({ include_usage: false }), 0);
  });

  it('tells a field of the wrong type from a missing one, and an empty list from a short text', async () => {
    const code = async (body: Record<string, unknown>) => (await t.gw('POST', '/v1/chat/completions', body)).json.error;
    assert.deepEqual(
      { ...(await code({ model: 123, messages: GROUNDED })), message: undefined },
      { type: 'invalid_request_error', message: undefined, param: 'model', code: 'invalid_type' },
    );
    assert.equal((await code({ messages: GROUNDED })).code, 'missing_required_parameter');
    assert.equal((await code({ model: 'local-extractive', messages: GROUNDED, stream: 'yes' })).code, 'invalid_type');
    assert.equal((await code({ model: 'local-extractive', messages: [] })).code, 'empty_array');
    assert.equal((await code({ model: 'local-extractive', messages: [{ role: 'user', content: 7 }] })).code, 'invalid_type');
    assert.equal((await code({ model: 'local-extractive', messages: GROUNDED, stop: [null] })).code, 'invalid_type');
  });

  it('accepts OpenAI content parts', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', {
      model: 'local-extractive',
      messages: [GROUNDED[0], { role: 'user', content: [{ type: 'text', text: 'How long are backups kept?' }] }],
    });
    assert.match(reply.json.choices[0].message.content, /thirty days/);
  });

  const invalid: [string, Record<string, unknown>, number, string][] = [
    ['no model', { messages: GROUNDED }, 400, 'model'],
    ['no messages', { model: 'local-extractive' }, 400, 'messages'],
    ['empty messages', { model: 'local-extractive', messages: [] }, 400, 'messages'],
    ['a message without role', { model: 'local-extractive', messages: [{ content: 'x' }] }, 400, 'messages[0].role'],
    ['a negative temperature', { model: 'local-extractive', messages: GROUNDED, temperature: -0.5 }, 400, 'temperature'],
    ['two answers (n 2)', { model: 'local-extractive', messages: GROUNDED, n: 2 }, 400, 'n'],
    ['five stop sequences', { model: 'local-extractive', messages: GROUNDED, stop: ['a', 'b', 'c', 'd', 'e'] }, 400, 'stop'],
    ['max_completion_tokens 0', { model: 'local-extractive', messages: GROUNDED, max_completion_tokens: 0 }, 400, 'max_completion_tokens'],
    [
      'a json_schema response format',
      { model: 'local-extractive', messages: GROUNDED, response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
      400,
      'response_format',
    ],
    ['a company model that is not served', { model: 'alpha-5-1', messages: GROUNDED }, 404, 'model'],
  ];
  for (const [label, body, status, param] of invalid) {
    it(`${status} for ${label}`, async () => {
      const reply = await t.gw('POST', '/v1/chat/completions', body);
      assert.equal(reply.status, status, reply.text);
      assert.equal(reply.json.error.param, param);
      if (status === 404) {
        assert.equal(reply.json.error.code, 'model_not_found');
        assert.match(reply.json.error.message, /local-extractive/);
      }
    });
  }
});

describe('backend: deprecated inference endpoint', () => {
  let t: TestBackend;
  before(async () => {
    t = await startTestBackend();
  });
  after(async () => t.close());

  const prompt = '[1] faq.md\nThe office opens at eight. Parking is free.\n\nQuestion: When does the office open?';

  it('answers {model, response, usage} with Deprecation and Sunset headers', async () => {
    const reply = await t.gw('POST', '/v1/inference/local-extractive', { prompt, project_code: 'NA' });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(Object.keys(reply.json).sort(), ['model', 'response', 'usage']);
    assert.equal(reply.json.model, 'local-extractive');
    assert.match(reply.json.response, /"The office opens at eight\." \[1\]/);
    assert.equal(reply.headers.deprecation, 'true');
    const sunset = new Date(String(reply.headers.sunset));
    assert.equal(sunset.getUTCMonth(), 11);
    assert.equal(sunset.getUTCDate(), 17);
    assert.match(String(reply.headers.link), /\/v1\/chat\/completions/);
  });

  it('streams the same SSE as chat', async () => {
    const reply = await t.gw('POST', '/v1/inference/local-extractive', { prompt, project_code: 'NA', stream: true });
    assert.equal(reply.headers.deprecation, 'true');
    const events = parseSse(reply.text);
    assert.equal(events.at(-1)!.data, '[DONE]');
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.data).choices[0]?.delta?.content ?? '')
      .join('');
    assert.match(text, /office opens at eight/);
  });

  it('counts max_tokens over the prompt and the answer together, as the contract defines it', async () => {
    const whole = await t.gw('POST', '/v1/inference/local-extractive', { prompt, project_code: 'NA' });
    const promptTokens: number = whole.json.usage.prompt_tokens;
    assert.ok(whole.json.usage.completion_tokens > 5, whole.text);
    const limited = await t.gw('POST', '/v1/inference/local-extractive', { prompt, project_code: 'NA', max_tokens: promptTokens + 5 });
    assert.equal(limited.status, 200, limited.text);
    assert.equal(limited.json.usage.prompt_tokens, promptTokens);
    assert.ok(limited.json.usage.total_tokens <= promptTokens + 5, JSON.stringify(limited.json.usage));
    assert.ok(whole.json.response.startsWith(limited.json.response) && limited.json.response.length > 0);

    const tooSmall = await t.gw('POST', '/v1/inference/local-extractive', { prompt, project_code: 'NA', max_tokens: promptTokens });
    assert.equal(tooSmall.status, 400, tooSmall.text);
    assert.equal(tooSmall.json.error.param, 'max_tokens');
    assert.equal(tooSmall.json.error.code, 'context_length_exceeded');
    assert.match(tooSmall.json.error.message, new RegExp(`max_tokens \\(${promptTokens}\\).*prompt alone is about ${promptTokens} tokens`));
  });

  it('validates prompt and project_code, and 404s models that are not served', async () => {
    const noPrompt = await t.gw('POST', '/v1/inference/local-extractive', { project_code: 'NA' });
    assert.equal(noPrompt.status, 400);
    assert.equal(noPrompt.json.error.param, 'prompt');
    const noProject = await t.gw('POST', '/v1/inference/local-extractive', { prompt: 'x' });
    assert.equal(noProject.status, 400);
    assert.equal(noProject.json.error.param, 'project_code');
    const legacy = await t.gw('POST', '/v1/inference/o3', { prompt: 'x', project_code: 'NA' });
    assert.equal(legacy.status, 404);
    assert.equal(legacy.json.error.code, 'model_not_found');
  });
});
