/**
 * Chat and completions validation added for issue 11 (request-pipeline §3.1.3 plus what OpenAI's
 * API and vLLM's request models refuse): messages, tools, response_format, the accepted-but-ignored
 * fields' types, logit_bias range, multimodal parts. Each refusal is checked for its status, code,
 * `param` and exact text; the acceptance cases make sure real clients' bodies still pass.
 */
import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '../../src/api/openai/chat-request.js';
import { parseCompletionRequest } from '../../src/api/openai/completion-request.js';
import { EngineError } from '../../src/engine/client-types.js';
import { WireFieldError } from '../../src/engine/dialects/guard-checks.js';
import { PipelineError, submitError } from '../../src/pipeline/errors.js';

const user = { role: 'user', content: 'Hi' };
const base = { model: 'm', messages: [user] };
const chat = (over: Record<string, unknown>) => parseChatRequest({ ...base, ...over });
const after = (...messages: unknown[]) => chat({ messages: [user, ...messages] });
const fn = (name: unknown, extra: Record<string, unknown> = {}) => ({ type: 'function', function: { name, ...extra } });

function refusal(run: () => unknown): PipelineError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    expect((err as PipelineError).status).toBe(400);
    return err as PipelineError;
  }
  throw new Error('expected a 400');
}

/** [message, param, code] of a refusal. */
function why(run: () => unknown): [string, string | null, string] {
  const e = refusal(run);
  return [e.message, e.param, e.code];
}

describe('messages', () => {
  it.each([
    [{ role: 'bogus', content: 'x' }, "messages[1].role: unknown role \"bogus\"; expected one of 'system', 'user', 'assistant', 'tool', 'function', 'developer'", 'messages[1].role'],
    [{ role: '', content: 'x' }, "messages[1].role: unknown role \"\"; expected one of 'system', 'user', 'assistant', 'tool', 'function', 'developer'", 'messages[1].role'],
    [{ role: 5, content: 'x' }, 'messages[1].role: must be a string', 'messages[1].role'],
    [{ role: 'tool', content: '42' }, 'messages[1].tool_call_id: field is required for tool messages', 'messages[1].tool_call_id'],
    [{ role: 'tool', content: '42', tool_call_id: 3 }, 'messages[1].tool_call_id: must be a string, got number 3', 'messages[1].tool_call_id'],
    [{ role: 'tool', tool_call_id: 'c' }, 'messages[1].content: field is required for tool messages', 'messages[1].content'],
    [{ role: 'system', content: null }, 'messages[1].content: field is required for system messages', 'messages[1].content'],
    [{ role: 'function', content: 'x' }, 'messages[1].name: field is required for function messages', 'messages[1].name'],
    [{ role: 'assistant', content: 'a', name: 5 }, 'messages[1].name: must be a string, got number 5', 'messages[1].name'],
    [{ role: 'assistant', content: 7 }, 'messages[1].content: must be a string or an array of content parts, got number 7', 'messages[1].content'],
    [{ role: 'assistant', content: 'a', reasoning_content: 1 }, 'messages[1].reasoning_content: must be a string, got number 1', 'messages[1].reasoning_content'],
  ])('%j → %s', (msg, message, param) => {
    expect(why(() => after(msg))).toEqual([message, param, 'invalid_value']);
  });

  it('content parts: objects with a string type, text parts with text, refusals only from the assistant', () => {
    expect(why(() => chat({ messages: [{ role: 'user', content: [null] }] }))).toEqual([
      "messages[0].content[0]: must be a content part object with a string 'type', got null",
      'messages[0].content[0]',
      'invalid_value',
    ]);
    expect(why(() => chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }))[0]).toBe(
      'messages[0].content[0].text: must be a string, got number 5',
    );
    expect(why(() => chat({ messages: [{ role: 'user', content: [{ type: 'bogus' }] }] }))[0]).toBe(
      "messages[0].content[0].type: unknown content part type \"bogus\" in user messages; expected 'text'",
    );
    expect(why(() => chat({ messages: [{ role: 'user', content: [{ type: 'refusal', refusal: 'no' }] }] }))[0]).toBe(
      "messages[0].content[0].type: unknown content part type \"refusal\" in user messages; expected 'text'",
    );
    expect(why(() => after({ role: 'assistant', content: [{ type: 'refusal', refusal: 5 }] }))[0]).toBe('messages[1].content[0].refusal: must be a string, got number 5');
  });

  it.each(['image_url', 'input_image', 'input_audio', 'audio_url', 'video_url', 'file', 'image_embeds'])(
    'a %s part is 400 multimodal_not_supported naming the part',
    (type) => {
      const e = refusal(() => chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type, [type]: {} }] }] }));
      expect(e.code).toBe('multimodal_not_supported');
      expect(e.param).toBe('messages[0].content[1]');
      expect(e.message).toBe(`messages[0].content[1]: '${type}' content parts are not supported: this gateway serves text-only models (no multimodal input path)`);
    },
  );

  it('SMG texts stay for empty user content', () => {
    // vLLM accepts empty user content (issue 26); a missing one keeps SMG's text.
    expect(() => chat({ messages: [{ role: 'user', content: '' }] })).not.toThrow();
    expect(() => chat({ messages: [{ role: 'user', content: [] }] })).not.toThrow();
    expect(why(() => chat({ messages: [{ role: 'user', content: null }] }))).toEqual(['message content cannot be empty', 'messages[0].content', 'invalid_value']);
    expect(why(() => chat({ messages: [] }))[0]).toBe('messages: Validation error: messages cannot be empty');
  });

  it.each([
    ['x', "messages[1].tool_calls: must be an array, got \"x\""],
    [[5], "messages[1].tool_calls[0]: must be an object {id, type: 'function', function: {name, arguments}}, got number 5"],
    [[{ type: 'function', function: { name: 'f', arguments: '{}' } }], 'messages[1].tool_calls[0].id: must be a string, got nothing'],
    [[{ id: 'c', type: 'tool', function: { name: 'f', arguments: '{}' } }], "messages[1].tool_calls[0].type: must be 'function', got \"tool\""],
    [[{ id: 'c', type: 'function' }], "messages[1].tool_calls[0].function: must be an object with 'name' and 'arguments', got nothing"],
    [[{ id: 'c', type: 'function', function: { name: 1, arguments: '{}' } }], 'messages[1].tool_calls[0].function.name: must be a string, got number 1'],
    [[{ id: 'c', type: 'function', function: { name: 'f', arguments: [1] } }], 'messages[1].tool_calls[0].function.arguments: must be a string (the arguments as JSON text) or an object, got an array'],
  ])('assistant tool_calls %j → %s', (calls, message) => {
    expect(why(() => after({ role: 'assistant', content: null, tool_calls: calls }))[0]).toBe(message);
  });

  it('tool calls belong to assistant messages', () => {
    expect(why(() => chat({ messages: [{ ...user, tool_calls: [] }] }))[0]).toBe('messages[0].tool_calls: only assistant messages can carry tool calls');
  });

  it('real conversations pass: system/developer, parts, tool calls with null content, tool results, function results, names', () => {
    const r = chat({
      messages: [
        { role: 'system', content: 'Be brief', name: 'sys' },
        { role: 'developer', content: [{ type: 'text', text: 'Use tools' }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'input_text', text: 'In Paris' }], name: null },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'w', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '20C' }] },
        { role: 'function', name: 'w', content: null },
        { role: 'assistant', content: [{ type: 'text', text: 'It is 20C' }, { type: 'refusal', refusal: '' }], reasoning_content: 'easy' },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(r.messages).toHaveLength(8);
  });
});

describe('tools', () => {
  it.each([
    [[5], 'tools[0]: must be an object', 'tools[0]'],
    [[{ type: 'function' }], 'tools[0].function: field is required and must be an object', 'tools[0].function'],
    [[{ ...fn('f'), type: 'bogus' }], "tools[0].type: must be 'function', got 'bogus'", 'tools[0].type'],
    [[fn(undefined)], 'tools[0].function.name: field is required', 'tools[0].function.name'],
    [[fn(5)], 'tools[0].function.name: must be a string, got number 5', 'tools[0].function.name'],
    [[fn('')], "tools[0].function.name: must be 1 to 64 characters of a-z, A-Z, 0-9, '_' or '-', got \"\"", 'tools[0].function.name'],
    [[fn('get.weather')], "tools[0].function.name: must be 1 to 64 characters of a-z, A-Z, 0-9, '_' or '-', got \"get.weather\"", 'tools[0].function.name'],
    [[fn('a'.repeat(65))], `tools[0].function.name: must be 1 to 64 characters of a-z, A-Z, 0-9, '_' or '-', got "${'a'.repeat(65)}"`, 'tools[0].function.name'],
    [[fn('f', { description: 1 })], 'tools[0].function.description: must be a string, got number 1', 'tools[0].function.description'],
    [[fn('f', { parameters: 'x' })], "tools[0].function.parameters: tool 'f': must be a JSON Schema object, got a string", 'tools[0].function.parameters'],
    [[fn('f', { parameters: [] })], "tools[0].function.parameters: tool 'f': must be a JSON Schema object, got an array", 'tools[0].function.parameters'],
    [[fn('f', { parameters: { type: 'bogus' } })], "tools[0].function.parameters: tool 'f': invalid JSON Schema: at /type must be equal to one of the allowed values", 'tools[0].function.parameters'],
    [[fn('f', { parameters: { type: 'object', properties: { a: { minLength: -1 } } } })], "tools[0].function.parameters: tool 'f': invalid JSON Schema: at /properties/a/minLength must be >= 0", 'tools[0].function.parameters'],
    [[fn('f', { parameters: { $ref: '#/$defs/X' } })], "tools[0].function.parameters: tool 'f': invalid JSON Schema: can't resolve reference #/$defs/X from id #", 'tools[0].function.parameters'],
    [[fn('f', { strict: 'yes' })], 'tools[0].function.strict: must be a boolean, got "yes"', 'tools[0].function.strict'],
    [[fn('f'), fn('g'), fn('f')], "tools[2].function.name: duplicate tool name 'f' (tools[0].function.name has the same name)", 'tools[2].function.name'],
  ])('%j → %s', (tools, message, param) => {
    expect(why(() => chat({ tools }))).toEqual([message, param, 'invalid_value']);
  });

  it('legacy functions are checked the same way', () => {
    expect(why(() => chat({ functions: [{ name: 'has space' }] }))[0]).toContain("tools[0].function.name: must be 1 to 64 characters");
  });

  it('schemas real clients send compile: unknown formats and keywords, 2020-12 $schema, $defs refs, Python-style patterns', () => {
    const parameters = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid', 'x-order': 1 },
        tags: { type: 'array', prefixItems: [{ type: 'string' }] },
        code: { type: 'string', pattern: '(?P<area>\\d{3})-\\d{4}' },
        where: { $ref: '#/$defs/Place' },
      },
      required: ['id'],
      additionalProperties: false,
      $defs: { Place: { type: 'object', properties: { city: { type: 'string' } } } },
    };
    expect(chat({ tools: [fn('lookup', { parameters, description: 'd', strict: true }), { function: { name: 'no_type_given' } }] }).tools).toHaveLength(2);
  });
});

describe('response_format', () => {
  const rf = (json_schema: unknown) => chat({ response_format: { type: 'json_schema', json_schema } });
  it.each([
    [{ schema: {} }, 'response_format.json_schema.name: field is required', 'response_format.json_schema.name'],
    [{ name: 5 }, 'response_format.json_schema.name: must be a string', 'response_format.json_schema.name'],
    [{ name: '' }, 'JSON schema name cannot be empty', 'response_format.json_schema.name'],
    [{ name: 'my answer' }, "response_format.json_schema.name: must be 1 to 64 characters of a-z, A-Z, 0-9, '_' or '-', got \"my answer\"", 'response_format.json_schema.name'],
    [{ name: 'a', schema: '{"type":"object"}' }, 'response_format.json_schema.schema: must be a JSON Schema object, got a string', 'response_format.json_schema.schema'],
    [{ name: 'a', schema: { type: 'nope' } }, 'response_format.json_schema.schema: invalid JSON Schema: at /type must be equal to one of the allowed values', 'response_format.json_schema.schema'],
    [{ name: 'a', strict: 1 }, 'response_format.json_schema.strict: must be a boolean', 'response_format.json_schema.strict'],
    ['x', 'response_format.json_schema: must be an object', 'response_format.json_schema'],
  ])('json_schema %j → %s', (js, message, param) => {
    expect(why(() => rf(js))).toEqual([message, param, 'invalid_value']);
  });

  it('a named schema, with or without a schema, passes', () => {
    expect(rf({ name: 'answer', schema: { type: 'object' }, strict: true }).structured).toEqual({ kind: 'json_schema', schema: { type: 'object' } });
    expect(rf({ name: 'answer' }).structured).toEqual({ kind: 'json_schema', schema: {} });
  });

  it("SGLang's json_schema text must be a compilable schema", () => {
    expect(why(() => chat({ json_schema: '{x' }))[0]).toMatch(/^json_schema: must be a JSON Schema as JSON text: /);
    expect(why(() => chat({ json_schema: '"s"' }))[0]).toBe('json_schema: must be a JSON Schema object, got a string');
    expect(chat({ json_schema: '{"type":"object"}' }).structured).toEqual({ kind: 'json_schema', schema: '{"type":"object"}' });
  });
});

describe('fields accepted but not acted on are still type-checked', () => {
  it.each([
    [{ parallel_tool_calls: 'yes' }, 'parallel_tool_calls: must be a boolean', 'parallel_tool_calls'],
    [{ user: 5 }, 'user: must be a string', 'user'],
    [{ metadata: [] }, 'metadata: must be an object', 'metadata'],
    [{ modalities: 'text' }, 'modalities: must be an array', 'modalities'],
    [{ stream: true, stream_options: { include_usage: 'y' } }, 'stream_options.include_usage: must be a boolean', 'stream_options.include_usage'],
  ])('%j → %s', (over, message, param) => {
    expect(why(() => chat(over))).toEqual([message, param, 'invalid_value']);
  });

  it('output modality checks keep SMG codes', () => {
    expect(why(() => chat({ return_audio: true }))).toEqual([
      "'return_audio' must be false because the gRPC backend only supports text output",
      'return_audio',
      'audio_output_not_supported',
    ]);
    expect(why(() => chat({ modalities: ['audio'] }))[2]).toBe('unsupported_output_modality');
  });

  it('every max-token key is checked, the first present wins', () => {
    expect(why(() => chat({ max_completion_tokens: 5, max_tokens: 0 }))[0]).toBe('max_tokens: must be at least 1');
    expect(chat({ max_completion_tokens: 5, max_tokens: 7 }).maxTokens).toBe(5);
  });

  it("SMG's tool_choice texts name their field", () => {
    expect(why(() => chat({ tool_choice: 'required' }))[1]).toBe('tool_choice');
    expect(why(() => chat({ tools: [fn('f')], tool_choice: { type: 'allowed_tools', mode: 'x', tools: [] } }))[1]).toBe('tool_choice.mode');
  });

  it('SMG range texts carry the field as param', () => {
    expect(why(() => chat({ top_p: 0 }))).toEqual(['top_p must be in (0, 1] - greater than 0.0 and at most 1.0', 'top_p', 'invalid_value']);
    expect(why(() => chat({ top_k: 0 }))[1]).toBe('top_k');
    expect(why(() => chat({ stop: '' }))[1]).toBe('stop');
    expect(why(() => chat({ top_logprobs: 2 }))[1]).toBe('top_logprobs');
  });
});

describe('logit_bias', () => {
  it('values outside [-100, 100] are refused, not clamped', () => {
    expect(why(() => chat({ logit_bias: { '12': 100.5 } }))).toEqual(["logit_bias: value for '12' must be in [-100, 100], got 100.5", 'logit_bias', 'invalid_value']);
    expect(why(() => parseCompletionRequest({ model: 'm', prompt: 'x', logit_bias: { '3': -1000 } }))[0]).toBe("logit_bias: value for '3' must be in [-100, 100], got -1000");
    expect(chat({ logit_bias: { '12': -100, '13': 100 } }).logitBias).toEqual(new Map([[12, -100], [13, 100]]));
  });
});

describe('completions', () => {
  it('user and body shape', () => {
    expect(why(() => parseCompletionRequest({ model: 'm', prompt: 'x', user: 1 }))).toEqual(['user: must be a string', 'user', 'invalid_value']);
    const e = refusal(() => parseCompletionRequest([]));
    expect([e.code, e.message]).toEqual(['json_parse_error', 'Invalid JSON data: request body must be a JSON object']);
    expect(why(() => parseCompletionRequest({ model: 'm', prompt: [] }))[1]).toBe('prompt');
  });
});

describe('wire guard refusals', () => {
  it('the engine field the guard refused is the 400 param', () => {
    const guard = new WireFieldError('sampling_params.top_k', 'top_k must be -1 or in [1, 128), got 200');
    const e = submitError(new EngineError('invalid', guard.message, guard.field));
    expect([e.status, e.code, e.param, e.message]).toEqual([
      400,
      'invalid_request_parameters',
      'sampling_params.top_k',
      'Invalid request parameters: sampling_params.top_k: top_k must be -1 or in [1, 128), got 200',
    ]);
  });
});
