/**
 * /v1/messages validation added for issue 11: unknown content block types and misplaced tool
 * blocks are refused instead of dropped from the prompt, empty user turns, tool_use input, custom
 * tool names / input_schema (ajv) / duplicates, metadata. The envelope is Anthropic's
 * (src/api/anthropic/errors.ts); here the PipelineError behind it is checked.
 */
import { describe, expect, it } from 'vitest';
import { anthropicErrorResponse } from '../../src/api/anthropic/errors.js';
import { parseMessagesRequest } from '../../src/api/anthropic/request.js';
import { PipelineError } from '../../src/pipeline/errors.js';

const base = { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] };
const parse = (over: Record<string, unknown>) => parseMessagesRequest({ ...base, ...over });
const tool = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

function refusal(over: Record<string, unknown>): PipelineError {
  try {
    parse(over);
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    expect((err as PipelineError).status).toBe(400);
    return err as PipelineError;
  }
  throw new Error(`expected ${JSON.stringify(over)} to be refused`);
}
const text = (over: Record<string, unknown>) => refusal(over).message;
const asUser = (...content: unknown[]) => ({ messages: [{ role: 'user', content }] });
const asAssistant = (...content: unknown[]) => ({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content }] });

describe('content blocks', () => {
  it('unknown block types are refused wherever they appear', () => {
    expect(text(asUser({ type: 'bogus', text: 'x' }))).toBe("messages[0].content[0].type: unknown content block type 'bogus'");
    expect(text(asAssistant({ type: 'text', text: 'a' }, { type: 'bogus' }))).toBe("messages[1].content[1].type: unknown content block type 'bogus'");
    expect(refusal(asUser({ type: 'bogus' })).param).toBe('messages[0].content[0].type');
  });

  it('tool blocks must sit on the right side of the conversation', () => {
    expect(text(asUser({ type: 'tool_use', id: 't', name: 'f', input: {} }))).toBe("messages[0].content[0]: 'tool_use' blocks belong in assistant messages");
    expect(text(asAssistant({ type: 'tool_result', tool_use_id: 't' }))).toBe("messages[1].content[0]: 'tool_result' blocks belong in user messages");
  });

  it('tool_use input must be an object', () => {
    expect(text(asAssistant({ type: 'tool_use', id: 't', name: 'f', input: 'x' }))).toBe('messages[1].content[0].input: must be an object');
    expect(text(asAssistant({ type: 'tool_use', id: 't', name: 'f', input: [1] }))).toBe('messages[1].content[0].input: must be an object');
  });

  it('an empty user turn is refused', () => {
    expect(text({ messages: [{ role: 'user', content: '' }] })).toBe('messages[0].content: user messages must have non-empty content');
    expect(text({ messages: [{ role: 'user', content: [] }] })).toBe('messages[0].content: user messages must have non-empty content');
  });

  it('known blocks without a chat form are still skipped', () => {
    const r = parse(asUser({ type: 'text', text: 'Hi' }, { type: 'search_result', source: 's', title: 't', content: [] }, { type: 'redacted_thinking', data: 'x' }));
    expect(r.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });
});

describe('custom tools', () => {
  it.each([
    [{ ...tool, name: 'get weather' }, "tools[0].name: must be 1 to 64 characters of a-z, A-Z, 0-9, '_' or '-', got \"get weather\"", 'tools[0].name'],
    [{ ...tool, name: 'x'.repeat(65) }, `tools[0].name: must be 1 to 64 characters of a-z, A-Z, 0-9, '_' or '-', got "${'x'.repeat(65)}"`, 'tools[0].name'],
    [{ ...tool, input_schema: { type: 'bogus' } }, "tools[0].input_schema: tool 'get_weather': invalid JSON Schema: at /type must be equal to one of the allowed values", 'tools[0].input_schema'],
    [{ ...tool, input_schema: { type: 'object', required: 'city' } }, "tools[0].input_schema: tool 'get_weather': invalid JSON Schema: at /required must be array", 'tools[0].input_schema'],
    [{ ...tool, description: 5 }, 'tools[0].description: must be a string, got number 5', 'tools[0].description'],
  ])('%j → %s', (t, message, param) => {
    const e = refusal({ tools: [t] });
    expect([e.message, e.param, e.code]).toEqual([message, param, 'invalid_value']);
  });

  it('two custom tools with one name are refused; server tools do not count', () => {
    expect(text({ tools: [tool, { type: 'custom', ...tool }] })).toBe("tools[1].name: duplicate tool name 'get_weather' (tools[0].name has the same name)");
    expect(parse({ tools: [tool, { type: 'web_search_20250305', name: 'get_weather' }] }).tools).toHaveLength(1);
  });
});

describe('other fields', () => {
  it('metadata must be an object', () => {
    expect(text({ metadata: 'x' })).toBe('metadata: must be an object');
    expect(parse({ metadata: { user_id: 'u' } }).model).toBe('m');
  });

  it("the 400 goes out in Anthropic's envelope with the SMG code header", async () => {
    const res = anthropicErrorResponse(refusal(asUser({ type: 'bogus' })), 'req-9');
    expect(res.status).toBe(400);
    expect(res.headers.get('x-smg-error-code')).toBe('invalid_value');
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: "messages[0].content[0].type: unknown content block type 'bogus'" },
      request_id: 'req-9',
    });
  });
});
