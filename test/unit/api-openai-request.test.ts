/**
 * Request parsing for /v1/chat/completions and /v1/completions: normalization and the validation
 * texts of request-pipeline §3.1.3 / §3.2, plus the two error envelopes of §2.2.
 */
import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '../../src/api/openai/chat-request.js';
import { parseCompletionRequest } from '../../src/api/openai/completion-request.js';
import { openaiErrorBody, openaiErrorResponse, sseErrorFrame } from '../../src/api/openai/errors.js';
import { PipelineError, invalid, jsonParseError } from '../../src/pipeline/errors.js';

const base = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };
const chat = (over: Record<string, unknown>) => parseChatRequest({ ...base, ...over });

/** The validation message a body produces (fails the test if it parses). */
function chatError(over: Record<string, unknown>): string {
  try {
    chat(over);
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    expect((err as PipelineError).status).toBe(400);
    return (err as PipelineError).message;
  }
  throw new Error(`expected ${JSON.stringify(over)} to be rejected`);
}

function completionError(body: Record<string, unknown>): string {
  try {
    parseCompletionRequest({ model: 'm', ...body });
  } catch (err) {
    expect((err as PipelineError).status).toBe(400);
    return (err as PipelineError).message;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

describe('chat request normalization', () => {
  it('defaults', () => {
    const r = chat({});
    expect(r).toMatchObject({
      model: 'm',
      maxTokens: undefined,
      minTokens: 0,
      n: 1,
      seed: undefined,
      stop: [],
      stopTokenIds: [],
      ignoreEos: false,
      keepStop: false,
      skipSpecialTokens: true,
      logprobs: false,
      topLogprobs: undefined,
      stream: false,
      includeUsage: false,
      tools: undefined,
      toolChoice: undefined,
      structured: null,
      addGenerationPrompt: true,
    });
  });

  it('max_completion_tokens wins over max_tokens; max_tokens alone is used', () => {
    expect(chat({ max_tokens: 7 }).maxTokens).toBe(7);
    expect(chat({ max_tokens: 7, max_completion_tokens: 9 }).maxTokens).toBe(9);
  });

  it('nulls count as absent (clients send explicit nulls)', () => {
    expect(chat({ max_tokens: null, temperature: null, stop: null, seed: null }).maxTokens).toBeUndefined();
  });

  it('functions → tools, function_call → tool_choice; tool_choice defaults by tools', () => {
    const fn = { name: 'f', parameters: {} };
    expect(chat({ functions: [fn] })).toMatchObject({ tools: [{ type: 'function', function: fn }], toolChoice: 'auto' });
    expect(chat({ functions: [fn], function_call: 'none' }).toolChoice).toBe('none');
    expect(chat({ functions: [fn], function_call: { name: 'f' } }).toolChoice).toEqual({ type: 'function', function: { name: 'f' } });
    expect(chat({ tools: [] }).toolChoice).toBe('none');
    // tools given explicitly win over functions.
    expect(chat({ tools: [{ type: 'function', function: { name: 'g' } }], functions: [fn] }).tools).toHaveLength(1);
  });

  it('stream options, seed clamp, stop forms and the keep-stop aliases', () => {
    expect(chat({ stream: true, stream_options: { include_usage: true } }).includeUsage).toBe(true);
    expect(chat({ seed: 2 ** 40 }).seed).toBe(2 ** 31 - 1);
    expect(chat({ seed: -(2 ** 40) }).seed).toBe(-(2 ** 31));
    expect(chat({ stop: 'x' }).stop).toEqual(['x']);
    expect(chat({ no_stop_trim: true }).keepStop).toBe(true);
    expect(chat({ include_stop_str_in_output: true }).keepStop).toBe(true);
    expect(chat({ top_k: -1 }).topK).toBe(-1);
  });

  it('reasoning_effort (numbers become strings) and response_format reach the template inputs', () => {
    expect(chat({ reasoning_effort: 'none' }).reasoningEffort).toBe('none');
    expect(chat({ reasoning_effort: 3 }).reasoningEffort).toBe('3');
    expect(chat({}).reasoningEffort).toBeUndefined();
    expect(chat({ response_format: { type: 'json_object' } }).responseFormat).toEqual({ type: 'json_object' });
    expect(chatError({ reasoning_effort: true })).toBe('reasoning_effort: must be a string');
  });

  it('structured outputs: one constraint from response_format / regex / ebnf', () => {
    expect(chat({ response_format: { type: 'json_object' } }).structured).toEqual({ kind: 'json_schema', schema: { type: 'object' } });
    expect(chat({ response_format: { type: 'text' } }).structured).toBeNull();
    expect(chat({ regex: '[a-z]+' }).structured).toEqual({ kind: 'regex', pattern: '[a-z]+' });
    expect(chat({ ebnf: 'root ::= "a"' }).structured).toEqual({ kind: 'grammar', grammar: 'root ::= "a"' });
    expect(
      chat({ response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'string' } } } }).structured,
    ).toEqual({ kind: 'json_schema', schema: { type: 'string' } });
  });
});

describe('chat validation messages (§3.1.3)', () => {
  it.each([
    [{ messages: [] }, 'messages cannot be empty'],
    [{ messages: [{ role: 'user', content: null }] }, 'message content cannot be empty'],
    [{ top_logprobs: 2 }, 'top_logprobs is only allowed when logprobs is enabled'],
    [{ stream_options: { include_usage: true } }, "The 'stream_options' parameter is only allowed when 'stream' is enabled"],
    [{ min_tokens: 5, max_tokens: 4 }, 'min_tokens cannot exceed max_tokens/max_completion_tokens'],
    [{ response_format: { type: 'json_object' }, regex: 'a' }, 'cannot use regex constraint with JSON response format'],
    [{ response_format: { type: 'json_object' }, ebnf: 'a' }, 'cannot use EBNF constraint with JSON response format'],
    [{ regex: 'a', ebnf: 'b' }, 'only one structured output constraint (regex, ebnf, or json_schema) can be active at a time'],
    [{ response_format: { type: 'json_schema', json_schema: { name: '', schema: {} } } }, 'JSON schema name cannot be empty'],
    [{ tool_choice: 'required' }, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."],
    [
      { tools: [{ type: 'function', function: { name: 'a' } }], tool_choice: { type: 'function', function: { name: 'b' } } },
      "Invalid value for 'tool_choice': function 'b' not found in 'tools'.",
    ],
    [{ top_p: 0 }, 'top_p must be in (0, 1] - greater than 0.0 and at most 1.0'],
    [{ top_p: 1.5 }, 'top_p must be in (0, 1] - greater than 0.0 and at most 1.0'],
    [{ top_k: 0 }, 'top_k must be -1 (disabled) or at least 1'],
    [{ top_k: -2 }, 'top_k must be -1 (disabled) or at least 1'],
    [{ stop: ['a', 'b', 'c', 'd', 'e'] }, 'maximum 4 stop sequences allowed'],
    [{ stop: ['a', ''] }, 'stop sequences cannot be empty'],
    [{ return_audio: true }, "'return_audio' must be false because the gRPC backend only supports text output"],
    [{ modalities: ['text', 'audio'] }, "unsupported output modality 'audio'; the gRPC backend only supports text output"],
  ])('%j → %s', (over, message) => {
    expect(chatError(over)).toContain(message);
  });

  it.each([
    ['temperature', 2.5],
    ['temperature', -0.1],
    ['frequency_penalty', 3],
    ['presence_penalty', -3],
    ['min_p', 1.5],
    ['repetition_penalty', 0],
    ['repetition_penalty', 2.5],
    ['n', 0],
    ['n', 11],
    ['top_logprobs', 21],
    ['max_tokens', 0],
    ['max_completion_tokens', 0],
  ])('%s = %s is out of range', (key, value) => {
    const over: Record<string, unknown> = { [key]: value };
    if (key === 'top_logprobs') over.logprobs = true;
    expect(chatError(over)).toContain(key);
  });

  it('type errors name the field', () => {
    expect(chatError({ temperature: 'hot' })).toBe('temperature: must be a number');
    expect(chatError({ n: 1.5 })).toBe('n: must be an integer');
    expect(chatError({ stream: 'yes' })).toBe('stream: must be a boolean');
    expect(chatError({ stop_token_ids: [-1] })).toContain('stop_token_ids');
    expect(chatError({ model: 3 })).toContain('model');
    // No model: the pipeline serves the only model (vLLM's behaviour), so parsing accepts it.
    expect(chat({ model: undefined }).model).toBe('');
    expect(chatError({ messages: 'Hi' })).toContain('messages');
  });
});

describe('completion request', () => {
  it('prompt forms: string, strings, token ids, arrays of token ids', () => {
    expect(parseCompletionRequest({ model: 'm', prompt: 'a' }).prompts).toEqual([{ text: 'a' }]);
    expect(parseCompletionRequest({ model: 'm', prompt: ['a', 'b'] }).prompts).toEqual([{ text: 'a' }, { text: 'b' }]);
    expect(parseCompletionRequest({ model: 'm', prompt: [1, 2] }).prompts).toEqual([{ tokenIds: [1, 2] }]);
    expect(parseCompletionRequest({ model: 'm', prompt: [[1], [2, 3]] }).prompts).toEqual([{ tokenIds: [1] }, { tokenIds: [2, 3] }]);
  });

  it('echo, suffix, logprobs, n up to 128', () => {
    const r = parseCompletionRequest({ model: 'm', prompt: 'a', echo: true, suffix: '!', logprobs: 3, n: 128 });
    expect(r).toMatchObject({ echo: true, suffix: '!', logprobs: 3, n: 128 });
  });

  it.each([
    [{ prompt: [] }, 'prompt array cannot be empty'],
    [{ prompt: 5 }, 'prompt: must be'],
    [{ prompt: ['a', 5] }, 'prompt[1]'],
    [{ prompt: 'a', best_of: 1, n: 2 }, 'best_of must be greater than n'],
    [{ prompt: 'a', best_of: 3, stream: true }, 'best_of is not supported when stream is enabled'],
    [{ prompt: 'a', logprobs: 6 }, 'logprobs'],
    [{ prompt: 'a', n: 129 }, 'n'],
    [{ prompt: 'a', min_tokens: 3, max_tokens: 2 }, 'min_tokens cannot exceed max_tokens'],
    [{ prompt: 'a', regex: 'a', json_schema: '{}' }, 'only one structured output constraint'],
  ])('%j → %s', (body, message) => {
    expect(completionError(body)).toContain(message);
  });
});

describe('error envelope: {error: {message, type, param, code}} + X-SMG-Error-Code', () => {
  it('validation: invalid_request_error, the string code invalid_value, the field as param', () => {
    const e = invalid('top_p must be in (0, 1]', 'top_p');
    expect(openaiErrorBody(e)).toEqual({ error: { message: 'top_p must be in (0, 1]', type: 'invalid_request_error', param: 'top_p', code: 'invalid_value' } });
    expect(openaiErrorResponse(e).headers.get('X-SMG-Error-Code')).toBe('invalid_value');
  });

  it('a `<field>: <problem>` message names its field as param', () => {
    expect(openaiErrorBody(invalid('tools[2].function.name: must be a string')).error.param).toBe('tools[2].function.name');
    expect(openaiErrorBody(invalid('Invalid JSON data: request body must be a JSON object')).error.param).toBeNull();
  });

  it('body parse failures keep the json_parse_error code', () => {
    const e = jsonParseError('JSON syntax error: x');
    expect(openaiErrorBody(e)).toEqual({ error: { message: 'JSON syntax error: x', type: 'invalid_request_error', param: null, code: 'json_parse_error' } });
  });

  it.each([
    [404, 'model_not_found', 'not_found_error'],
    [500, 'worker_stream_failed', 'server_error'],
    [503, 'tokenizer_not_ready', 'service_unavailable_error'],
    [501, 'not_implemented', 'not_implemented_error'],
    [429, 'too_many_requests', 'rate_limit_error'],
    [408, 'queue_timeout', 'timeout_error'],
    [409, 'request_id_in_flight', 'invalid_request_error'],
  ])('pipeline error %i %s: type %s, snake code, header', (status, code, type) => {
    const e = new PipelineError(status, code, 'text');
    expect(openaiErrorBody(e)).toEqual({ error: { message: 'text', type, param: null, code } });
    expect(openaiErrorResponse(e).headers.get('X-SMG-Error-Code')).toBe(code);
  });

  it('mid-stream error frame: the same envelope', () => {
    expect(JSON.parse(sseErrorFrame('Stream error: boom'))).toEqual({
      error: { message: 'Stream error: boom', type: 'server_error', param: null, code: 'stream_error' },
    });
  });
});
