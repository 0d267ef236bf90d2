/**
 * Random texts assembled from each format's own fragments (markers, partial markers, names,
 * JSON and Python punctuation, whitespace, unicode): no parser throws, every stream folds to the
 * non-streaming result, and the item structure stays sound. Seeded, so a failure reproduces.
 */
import { describe, expect, test } from 'vitest';
import { TOKEN_FORMAT_TOOL_PARSERS } from '../../src/pipeline/parsers/tools/registry-tokens.js';
import { TOKEN_FORMAT_TOOLS } from '../fixtures/tools/token-format-tools.js';
import { randomSplits, rng } from '../support/splits.js';
import { expectStreamMatchesParse } from './parsers-tools-tokens-harness.js';

const COMMON = [' ', '\n', 'a', 'é', '🙂', '"', "'", ':', ',', '{', '}', '[', ']', '<', '>', '|', '\\', '1', '2.5', 'true', 'None', 'get_weather', 'get_time', 'search', 'nope', 'city', 'days', '"city"', '"days": 3', '{"city": "Rome"}'];

const FRAGMENTS: Record<string, string[]> = {
  glm45_moe: ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>', '<tool_', '</arg_', '<tool_call>get_weather\n', '<arg_key>city</arg_key>'],
  glm47_moe: ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>', '<arg_', '<tool_call>search', '<arg_key>days</arg_key><arg_value>'],
  kimik2: ['<|tool_calls_section_begin|>', '<|tool_calls_section_end|>', '<|tool_call_begin|>', '<|tool_call_argument_begin|>', '<|tool_call_end|>', '<|tool_call', 'functions.get_weather:0', 'functions.nope:1', 'get_time:2', '<|tool_call_section_begin|>', '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>', '<|tool_calls_section_begin|><|tool_call_begin|>get_time:1<|tool_call_argument_begin|>'],
  kimi_k3: ['<|open|>', '<|close|>', '<|sep|>', 'tools', 'response', 'call', 'argument', '<|open|>tools<|sep|>', '<|close|>tools<|sep|>', '<|open|>call tool="get_weather" index="1"<|sep|>', '<|close|>call<|sep|>', '<|open|>argument key="city" type="string"<|sep|>', '<|open|>argument key="days" type="number"<|sep|>', '<|close|>argument<|sep|>', ' tool="nope"', '<|close|>response<|sep|>'],
  minimax_m2: ['<minimax:tool_call>', '</minimax:tool_call>', '<invoke name="get_weather">', '<invoke name="nope">', '<invoke', '</invoke>', '<parameter name="city">', '<parameter name="days">', '</parameter>', '<parameter', ' name="get_time">', '<minimax:'],
  step3: ['<｜tool_calls_begin｜>', '<｜tool_calls_end｜>', '<｜tool_call_begin｜>', '<｜tool_call_end｜>', '<｜tool_sep｜>', 'function', '<steptml:invoke name="get_weather">', '<steptml:invoke name="nope">', '</steptml:invoke>', '<steptml:parameter name="city">', '<steptml:parameter name="days">', '</steptml:parameter>', '<｜tool', '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_weather">', '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="search">'],
  cohere: ['<|START_ACTION|>', '<|END_ACTION|>', '<|START_RESPONSE|>', '<|END_RESPONSE|>', '<|START_', '"tool_name": "get_weather"', '"tool_name": "nope"', '"tool_name"', '"parameters": ', '"tool_call_id": "0", ', '[{', '}]', '{"tool_name": "search", "parameters": {"query": "q"}}', '<|START_ACTION|>[{"tool_name": "get_weather", "parameters": ', '<|START_ACTION|>{"parameters": '],
  sarashina: ['<|tool_calls|>', '<|tool_', "'name': 'get_weather'", "'name': 'nope'", "'arguments': ", "{'city': 'Rome'}", '[{', '}]', 'True', "'it\\'s'", "[{'name': 'get_time', 'arguments': {}}]"],
  inkling: ['<|message_model|>', '<|content_text|>', '<|content_invoke_tool_json|>', '<|content_invoke_tool_text|>', '<|end_message|>', '<|content_model_end_sampling|>', '<|content_', '{"name":"get_weather","args":', '{"args":{"city":"Rome"},"name":"get_time"}', '"args":', 'get_weather', '{"name":"nope","args":{}}'],
};

describe.each(TOKEN_FORMAT_TOOL_PARSERS.map((p) => [p.name, p] as const))('%s', (name, spec) => {
  test('random texts from the format’s fragments: stream equals parse, nothing throws', () => {
    const next = rng(name.length * 7919 + 17);
    const parts = [...FRAGMENTS[name], ...FRAGMENTS[name], ...COMMON];
    let checked = 0;
    for (let k = 0; k < 150; k++) {
      const n = 1 + Math.floor(next() * 24);
      let text = '';
      for (let i = 0; i < n; i++) text += parts[Math.floor(next() * parts.length)];
      checked += expectStreamMatchesParse(spec, TOKEN_FORMAT_TOOLS, text, randomSplits(text, 12, k, 5));
    }
    expect(checked).toBeGreaterThan(150 * 12);
  });
});
