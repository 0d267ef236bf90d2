/**
 * /v1/responses and /generate validation added for issue 11, with field names as those APIs call
 * them: Responses' flat function tools and `text.format`, nested `reasoning.effort`, input parts;
 * /generate's `sampling_params.*` names on the shared sampling checks.
 */
import { describe, expect, it } from 'vitest';
import { parseGenerateRequest } from '../../src/api/generate/request.js';
import { parseResponsesRequest } from '../../src/api/responses/request.js';
import { PipelineError } from '../../src/pipeline/errors.js';

function why(run: () => unknown): [string, string | null, string] {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    const e = err as PipelineError;
    expect(e.status).toBe(400);
    return [e.message, e.param, e.code];
  }
  throw new Error('expected a 400');
}

const responses = (over: Record<string, unknown>) => parseResponsesRequest({ model: 'm', input: 'Hi', ...over });
const fnTool = { type: 'function', name: 'get_weather', parameters: { type: 'object' } };

describe('Responses', () => {
  it.each([
    [{ tools: [{ ...fnTool, name: 'get weather' }] }, "tools[0].name: must be 1 to 64 characters of a-z, A-Z, 0-9, '_' or '-', got \"get weather\"", 'tools[0].name'],
    [{ tools: [{ type: 'function' }] }, 'tools[0].name: field is required', 'tools[0].name'],
    [{ tools: [{ ...fnTool, parameters: 'x' }] }, "tools[0].parameters: tool 'get_weather': must be a JSON Schema object, got a string", 'tools[0].parameters'],
    [{ tools: [{ ...fnTool, parameters: { type: 'bogus' } }] }, "tools[0].parameters: tool 'get_weather': invalid JSON Schema: at /type must be equal to one of the allowed values", 'tools[0].parameters'],
    [{ tools: [{ ...fnTool, strict: 'y' }] }, 'tools[0].strict: must be a boolean, got "y"', 'tools[0].strict'],
    [{ tools: [fnTool, fnTool] }, "tools[1].name: duplicate tool name 'get_weather' (tools[0].name has the same name)", 'tools[1].name'],
    [{ text: { format: { type: 'json_schema', schema: {} } } }, 'text.format.name: field is required', 'text.format.name'],
    [{ text: { format: { type: 'json_schema', name: 'a', schema: 5 } } }, 'text.format.schema: must be a JSON Schema object, got a number', 'text.format.schema'],
    [{ text: { format: 'json' } }, 'text.format: must be an object', 'text.format'],
    [{ reasoning: { effort: 5 } }, 'reasoning.effort: must be a string', 'reasoning.effort'],
    [{ parallel_tool_calls: 'no' }, 'parallel_tool_calls: must be a boolean', 'parallel_tool_calls'],
    [{ user: 1 }, 'user: must be a string', 'user'],
    [{ input: [{ role: 'user', content: [{ type: 'input_text', text: 3 }] }] }, 'input[0].content[0].text: must be a string', 'input[0].content[0].text'],
    [{ input: [{ role: 'assistant', content: [{ type: 'refusal', refusal: 3 }] }] }, 'input[0].content[0].refusal: must be a string', 'input[0].content[0].refusal'],
  ])('%j → %s', (over, message, param) => {
    expect(why(() => responses(over))).toEqual([message, param, 'invalid_value']);
  });

  it('media parts are multimodal_not_supported', () => {
    const [, param, code] = why(() => responses({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'x' }] }] }));
    expect([param, code]).toEqual(['input[0].content[0]', 'multimodal_not_supported']);
  });

  it('a valid JSON-schema format and function tools pass', () => {
    const r = responses({ tools: [fnTool], text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } } });
    expect(r.chat.structured).toEqual({ kind: 'json_schema', schema: { type: 'object' } });
    expect(r.chat.tools).toHaveLength(1);
  });
});

describe('/generate', () => {
  const generate = (over: Record<string, unknown>) => parseGenerateRequest({ text: 'Hi', ...over }, 'm');
  it.each([
    [{ sampling_params: { max_new_tokens: 0 } }, 'sampling_params.max_new_tokens: must be at least 1', 'sampling_params.max_new_tokens'],
    [{ sampling_params: { temperature: 'x' } }, 'sampling_params.temperature: must be a number', 'sampling_params.temperature'],
    [{ sampling_params: { top_p: 0 } }, 'top_p must be in (0, 1] - greater than 0.0 and at most 1.0', 'sampling_params.top_p'],
    [{ sampling_params: { seed: 1.5 } }, 'sampling_params.seed: must be an integer', 'sampling_params.seed'],
    [{ sampling_params: { sampling_seed: 'x' } }, 'sampling_params.sampling_seed: must be a number', 'sampling_params.sampling_seed'],
    [{ sampling_params: { json_schema: { type: 'bogus' } } }, 'sampling_params.json_schema: invalid JSON Schema: at /type must be equal to one of the allowed values', 'sampling_params.json_schema'],
    [{ sampling_params: { stop_token_ids: [-1] } }, 'sampling_params.stop_token_ids: must be an array of non-negative integer token ids', 'sampling_params.stop_token_ids'],
    [{ stream: 'x' }, 'stream: must be a boolean', 'stream'],
  ])('%j → %s', (over, message, param) => {
    expect(why(() => generate(over))).toEqual([message, param, 'invalid_value']);
  });

  it('input errors keep SMG codes', () => {
    expect(why(() => parseGenerateRequest({}, 'm'))).toEqual(['Either `text` or `input_ids` must be provided', null, 'resolve_input_failed']);
  });
});
