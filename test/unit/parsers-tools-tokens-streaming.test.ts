/**
 * Streaming behaviour of the token-format tool parsers: text is released as soon as it cannot
 * start a marker, a partial marker is held and released by finish(), `tool_start` goes out once
 * the name is complete, arguments stream before the call closes, and every split of short
 * fixtures (special tokens kept whole) folds to the non-streaming result.
 */
import { describe, expect, test } from 'vitest';
import type { ParsedItem } from '../../src/pipeline/parsers/types.js';
import type { ToolParserSpec, ToolSchema } from '../../src/pipeline/parsers/tools/types.js';
import { TOKEN_FORMAT_TOOL_PARSERS } from '../../src/pipeline/parsers/tools/registry-tokens.js';
import { glm45MoeToolParser } from '../../src/pipeline/parsers/tools/glm45_moe.js';
import { glm47MoeToolParser } from '../../src/pipeline/parsers/tools/glm47_moe.js';
import { kimiK2ToolParser } from '../../src/pipeline/parsers/tools/kimik2.js';
import { kimiK3ToolParser } from '../../src/pipeline/parsers/tools/kimi_k3.js';
import { minimaxM2ToolParser } from '../../src/pipeline/parsers/tools/minimax_m2.js';
import { step3ToolParser } from '../../src/pipeline/parsers/tools/step3.js';
import { cohereToolParser } from '../../src/pipeline/parsers/tools/cohere.js';
import { sarashinaToolParser } from '../../src/pipeline/parsers/tools/sarashina.js';
import { inklingToolParser } from '../../src/pipeline/parsers/tools/inkling.js';
import { TOKEN_FORMAT_TOOLS } from '../fixtures/tools/token-format-tools.js';
import { KIMIK2_ATOMS } from '../fixtures/tools/kimik2.js';
import { STEP3_ATOMS } from '../fixtures/tools/step3.js';
import { COHERE_ATOMS } from '../fixtures/tools/cohere.js';
import { INKLING_ATOMS } from '../fixtures/tools/inkling.js';
import { atomicAllSplits, expectStreamMatchesParse, foldParse } from './parsers-tools-tokens-harness.js';

const TOOLS = TOKEN_FORMAT_TOOLS;

/** The marker that opens a call (or a call section) in each format. */
const START_MARKERS: Record<string, string> = {
  glm45_moe: '<tool_call>',
  glm47_moe: '<tool_call>',
  kimik2: '<|tool_calls_section_begin|>',
  kimi_k3: '<|open|>tools<|sep|>',
  minimax_m2: '<minimax:tool_call>',
  step3: '<｜tool_calls_begin｜>',
  cohere: '<|START_ACTION|>',
  sarashina: '<|tool_calls|>',
  inkling: '<|content_invoke_tool_json|>',
};

function textOf(items: readonly ParsedItem[]): string {
  return items.map((i) => (i.kind === 'text' ? i.text : '')).join('');
}

test('the registry lists every token-format parser once, by its §11.3 name', () => {
  const names = TOKEN_FORMAT_TOOL_PARSERS.map((p) => p.name);
  expect(names.sort()).toEqual(['cohere', 'glm45_moe', 'glm47_moe', 'inkling', 'kimi_k3', 'kimik2', 'minimax_m2', 'sarashina', 'step3']);
});

describe.each(TOKEN_FORMAT_TOOL_PARSERS.map((p) => [p.name, p] as const))('%s', (name, spec) => {
  const marker = START_MARKERS[name];

  test('plain text is released delta by delta', () => {
    const p = spec.create(TOOLS);
    // Inkling's output may open with a header (a bare name); prose with a space is text at once.
    expect(textOf(p.push('Hello, world. '))).toBe('Hello, world. ');
    expect(textOf(p.push('More text; a < b > c. '))).toBe('More text; a < b > c. ');
    expect(p.push('Done')).toEqual([{ kind: 'text', text: 'Done' }]);
    expect(p.finish()).toEqual([]);
  });

  test('a partial start marker is held at every cut, then released by finish()', () => {
    for (let k = 1; k < marker.length; k++) {
      const p = spec.create(TOOLS);
      const partial = marker.slice(0, k);
      expect(textOf(p.push('Hi there ' + partial))).toBe('Hi there ');
      expect(textOf(p.finish())).toBe(partial);
    }
  });

  test('a start marker that does not continue into one is released once it cannot', () => {
    const p = spec.create(TOOLS);
    const partial = marker.slice(0, marker.length - 1);
    expect(textOf(p.push('Hi there ' + partial))).toBe('Hi there ');
    const wrong = String.fromCodePoint(marker.codePointAt(marker.length - 1)! + 1);
    expect(textOf(p.push(wrong + ' '))).toBe(partial + wrong + ' ');
  });
});

describe('tool_start and arguments stream before the call closes', () => {
  function pushAll(spec: ToolParserSpec, deltas: string[], tools: readonly ToolSchema[] = TOOLS): ParsedItem[][] {
    const p = spec.create(tools);
    const out = deltas.map((d) => p.push(d));
    out.push(p.finish());
    return out;
  }

  test('glm45_moe', () => {
    const [a, b, c, d, e, f] = pushAll(glm45MoeToolParser, [
      'Sure.<tool_call>get_weather',
      '\n<arg_key>city</arg_key>\n<arg_value>Par',
      'is</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2',
      '</arg_value>\n',
      '</tool_call>',
    ]);
    expect(a).toEqual([{ kind: 'text', text: 'Sure.' }]);
    expect(b).toEqual([
      { kind: 'tool_start', tool: 0, name: 'get_weather' },
      { kind: 'tool_args', tool: 0, text: '{"city":"Par' },
    ]);
    expect(c).toEqual([{ kind: 'tool_args', tool: 0, text: 'is"' }]);
    expect(d).toEqual([{ kind: 'tool_args', tool: 0, text: ',"days":2' }]);
    expect(e).toEqual([{ kind: 'tool_args', tool: 0, text: '}' }]);
    expect(f).toEqual([]);
  });

  test('glm47_moe: the name is complete at the first tag after it', () => {
    const [a, b] = pushAll(glm47MoeToolParser, ['<tool_call>get_time', '</tool_call>']);
    expect(a).toEqual([]);
    expect(b).toEqual([
      { kind: 'tool_start', tool: 0, name: 'get_time' },
      { kind: 'tool_args', tool: 0, text: '{}' },
    ]);
  });

  test('kimik2', () => {
    const [a, b, c] = pushAll(kimiK2ToolParser, [
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>',
      '{"city": "Pa',
      'ris", "days": 1}<|tool_call_end|>',
    ]);
    expect(a).toEqual([{ kind: 'tool_start', tool: 0, name: 'get_weather' }]);
    expect(b).toEqual([{ kind: 'tool_args', tool: 0, text: '{"city":"Pa' }]);
    expect(c).toEqual([{ kind: 'tool_args', tool: 0, text: 'ris","days":1}' }]);
  });

  test('kimi_k3', () => {
    const [a, b] = pushAll(kimiK3ToolParser, [
      '<|open|>tools<|sep|><|open|>call tool="search" index="1"<|sep|><|open|>argument key="query" type="string"<|sep|>ab',
      'c<|close|>argument<|sep|><|close|>call<|sep|>',
    ]);
    expect(a).toEqual([
      { kind: 'tool_start', tool: 0, name: 'search' },
      { kind: 'tool_args', tool: 0, text: '{"query":"ab' },
    ]);
    expect(b).toEqual([{ kind: 'tool_args', tool: 0, text: 'c"}' }]);
  });

  test('minimax_m2', () => {
    const [a, b] = pushAll(minimaxM2ToolParser, ['<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Li', 'ma</parameter>']);
    expect(a).toEqual([
      { kind: 'tool_start', tool: 0, name: 'get_weather' },
      { kind: 'tool_args', tool: 0, text: '{"city":"Li' },
    ]);
    expect(b).toEqual([{ kind: 'tool_args', tool: 0, text: 'ma"' }]);
  });

  test('step3', () => {
    const [a] = pushAll(step3ToolParser, ['<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="search">']);
    expect(a).toEqual([
      { kind: 'tool_start', tool: 0, name: 'search' },
      { kind: 'tool_args', tool: 0, text: '{' },
    ]);
  });

  test('cohere: the name before the parameters, the parameters as they arrive', () => {
    const [a, b, c] = pushAll(cohereToolParser, [
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "search"',
      ', "parameters": {"query": "ru',
      'st"}}]<|END_ACTION|>',
    ]);
    expect(a).toEqual([{ kind: 'tool_start', tool: 0, name: 'search' }]);
    expect(b).toEqual([{ kind: 'tool_args', tool: 0, text: '{"query":"ru' }]);
    expect(c).toEqual([{ kind: 'tool_args', tool: 0, text: 'st"}' }]);
  });

  test('sarashina', () => {
    const [a, b] = pushAll(sarashinaToolParser, ["<|tool_calls|>[{'name': 'get_weather', 'arguments': {'city': 'Os", "lo'}}]"]);
    expect(a).toEqual([
      { kind: 'tool_start', tool: 0, name: 'get_weather' },
      { kind: 'tool_args', tool: 0, text: '{"city":"Os' },
    ]);
    expect(b).toEqual([{ kind: 'tool_args', tool: 0, text: 'lo"}' }]);
  });

  test('inkling: a declared header name starts the call before the args arrive', () => {
    const [a, b] = pushAll(inklingToolParser, ['<|message_model|>get_weather<|content_invoke_tool_json|>{"args":{"city":"Ki', 'ev"},"name":"get_weather"}<|end_message|>']);
    expect(a).toEqual([
      { kind: 'tool_start', tool: 0, name: 'get_weather' },
      { kind: 'tool_args', tool: 0, text: '{"city":"Ki' },
    ]);
    expect(b).toEqual([{ kind: 'tool_args', tool: 0, text: 'ev"}' }]);
  });
});

describe('every split of short fixtures, special tokens kept whole', () => {
  const F: ToolSchema[] = [{ name: 'f' }, ...TOOLS];
  const cases: Array<[ToolParserSpec, string, readonly string[]]> = [
    [glm45MoeToolParser, 'a<tool_call>get_time\n</tool_call>b', ['<tool_call>', '</tool_call>']],
    [glm47MoeToolParser, '<tool_call>f<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>', ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>']],
    [kimiK2ToolParser, '<|tool_calls_section_begin|><|tool_call_begin|>f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>z', KIMIK2_ATOMS],
    [kimiK2ToolParser, 'x<|tool_call_begin|>f:0<|tool_call_argument_begin|>{"a":1}<|tool_call_end|>', KIMIK2_ATOMS],
    [kimiK3ToolParser, 'hi<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f"<|sep|><|open|>argument key="k" type="number"<|sep|>12<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>', ['<|close|>response<|sep|>', '<|open|>tools<|sep|>', '<|open|>call tool="f"<|sep|>', '<|open|>argument key="k" type="number"<|sep|>', '<|close|>argument<|sep|>', '<|close|>call<|sep|>', '<|close|>tools<|sep|>']],
    [minimaxM2ToolParser, 'ok<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">1</parameter></invoke>\n</minimax:tool_call>!', ['<minimax:tool_call>', '</minimax:tool_call>', '<invoke name="f">', '</invoke>', '<parameter name="a">', '</parameter>']],
    [step3ToolParser, 'Hi <｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="f"><steptml:parameter name="x">yz</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>.', [...STEP3_ATOMS, '<steptml:invoke name="f">', '</steptml:invoke>', '<steptml:parameter name="x">', '</steptml:parameter>']],
    [cohereToolParser, '<|START_RESPONSE|>a<|END_RESPONSE|><|START_ACTION|>[{"tool_name":"f"}]<|END_ACTION|>', [...COHERE_ATOMS, '"tool_name"']],
    [cohereToolParser, '<|START_ACTION|>[{"tool_name":"g"}]<|END_ACTION|>', [...COHERE_ATOMS, '"tool_name"']],
    [sarashinaToolParser, "[{'name':'f'}]!", ["'name'"]],
    [sarashinaToolParser, "<|tool_calls|>{'name':'f'}", ["'name'", '<|tool_calls|>']],
    [inklingToolParser, 'f<|content_invoke_tool_json|>{"args":{"a":1}}<|end_message|>', [...INKLING_ATOMS, '"args"']],
  ];
  test.each(cases.map(([spec, text, atoms]) => [spec.name, text, spec, atoms] as const))('%s: %j', (_n, text, spec, atoms) => {
    const n = expectStreamMatchesParse(spec, F, text, atomicAllSplits(text, atoms));
    expect(n).toBeGreaterThan(100);
    // The short fixture is a call when the name is declared (all but the `g` case).
    expect(foldParse(spec, F, text).calls.length).toBe(text.includes('"g"') ? 0 : 1);
  });
});

test('a long plain-text stream passes through unchanged, one code point at a time', () => {
  const line = 'Plain prose with <b>tags</b>, [brackets], {braces}, "quotes" and <|pipes|> — 你好 🌍.\n';
  const text = line.repeat(200);
  for (const spec of TOKEN_FORMAT_TOOL_PARSERS) {
    const p = spec.create(TOOLS);
    let out = '';
    for (const cp of Array.from(text)) out += textOf(p.push(cp));
    out += textOf(p.finish());
    expect(out).toBe(text);
  }
});
