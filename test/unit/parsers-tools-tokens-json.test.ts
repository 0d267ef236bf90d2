/**
 * The JSON scanner in the token-format parsers' dialect (lenient, settled members, exact
 * integers), and the Python-literal reader: on valid JSON the output is exactly
 * JSON.stringify(JSON.parse(text)) (except where it is more faithful: integer precision and the
 * written order of integer-like keys), whatever the split; on broken or truncated input it is
 * still valid JSON, and the same for every split.
 */
import { describe, expect, test } from 'vitest';
import { compactJsonValue, Ev, JsonScanner, MODEL_JSON } from '../../src/pipeline/parsers/tools/json-scan.js';
import { PyScanner, pyLiteralToJson } from '../../src/pipeline/parsers/tools/py-literal.js';
import { allSplits, randomSplits, rng } from '../support/splits.js';

const compactJsonText = (text: string, python = false): string | null => (python ? pyLiteralToJson(text) : compactJsonValue(text, MODEL_JSON));

/**
 * Streams `deltas` through a scanner writing compact JSON; returns the whole output after close.
 * `objectOnly`: a top-level value that is not an object is read but not written (`started` false).
 */
function streamCompact(deltas: readonly string[], opts: { python?: boolean; objectOnly?: boolean } = {}): { out: string; started: boolean } {
  const sc = opts.python ? new PyScanner(0, false) : new JsonScanner(0, { dialect: MODEL_JSON });
  let buf = '';
  let out = '';
  let decided = !opts.objectOnly;
  sc.capture = decided;
  for (const d of deltas) {
    buf += d;
    if (!decided && buf.trim() !== '') {
      decided = true;
      sc.capture = buf.trimStart().startsWith('{');
    }
    sc.scan(buf);
    out += sc.out;
    sc.out = '';
  }
  sc.endOfInput();
  out += sc.out + sc.close();
  return { out, started: sc.capture };
}

const VALID = [
  '{"a": 1, "b": [true, false, null], "c": {"d": "e\\n\\t\\"\\\\\\/"}}',
  '  [ 1 , -2.5e+3 , 0 , 1E-7, 123.456, 0.1, 1e400 ]  ',
  '"\\u00e9\\ud83d\\ude00 plain 😀 \\u2028 \\u0000"',
  '{"empty": {}, "arr": [], "nested": [[[ ]]], "s": ""}',
  '{"ctrl": "\\u0001\\u001f", "k": "\\b\\f\\r", "uni": "中文 ñ"}',
  '{\n  "query": "weather in \\"Paris\\"",\n  "days": 3,\n  "opts": {"metric": true}\n}',
  'true',
  '-0.0',
];

describe('valid JSON', () => {
  test.each(VALID)('%s equals JSON.stringify(JSON.parse()) over many splits', (text) => {
    const expected = JSON.stringify(JSON.parse(text));
    expect(compactJsonText(text)).toBe(expected);
    for (const parts of randomSplits(text, 60, 3, 5)) expect(streamCompact(parts).out).toBe(expected);
  });

  test('a surrogate pair written as two escapes, over every split', () => {
    const text = '"\\ud83d\\ude00!"';
    for (const parts of allSplits(text)) expect(streamCompact(parts).out).toBe('"😀!"');
  });

  test('random values with random spacing', () => {
    const next = rng(11);
    const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)];
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 3 || r < 0.3) return pick([0, -1, 2.5, 1e-9, 123456, true, false, null, '', 'x y', 'é"\\\n', '🙂', '</arg_value>']);
      if (r < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--) o[pick(['a', 'b', 'key with space', 'ключ', 'k"q'])] = value(depth + 1);
      return o;
    };
    for (let i = 0; i < 200; i++) {
      const v = value(0);
      const spaced = JSON.stringify(v, null, pick([0, 1, 2, '\t']));
      const expected = JSON.stringify(v);
      expect(compactJsonText(spaced)).toBe(expected);
      for (const parts of randomSplits(spaced, 5, i, 4)) expect(streamCompact(parts).out).toBe(expected);
    }
  });

  test('integers keep every digit and integer-like keys keep their written place', () => {
    expect(compactJsonText('{"id": 12345678901234567890, "x": -9007199254740993}')).toBe('{"id":12345678901234567890,"x":-9007199254740993}');
    expect(compactJsonText('{"b": 1, "2": 2, "a": 3}')).toBe('{"b":1,"2":2,"a":3}');
    expect(compactJsonText('-0')).toBe('0');
  });

  test('a repeated key keeps its first value', () => {
    expect(compactJsonText('{"a": 1, "b": {"c": [1, {"a": 2}]}, "a": {"deep": [3]}, "d": 4}')).toBe('{"a":1,"b":{"c":[1,{"a":2}]},"d":4}');
  });

  test('lenient where leniency cannot change the meaning', () => {
    expect(compactJsonText('[1, 2, ]')).toBe('[1,2]');
    expect(compactJsonText('{"a": 1,}')).toBe('{"a":1}');
    expect(compactJsonText('"line\nbreak\ttab"')).toBe('"line\\nbreak\\ttab"');
    expect(compactJsonText('"\\q"')).toBe('"q"');
  });
});

describe('not JSON', () => {
  test.each(['{"a":}', '{"a" 1}', 'tru', '01', '1 2', '{"a": 1}}', "{'a': 1}", '[1, 2', '"open', '', 'nul', '{"a": .5}', '"\\uZZZZ"'])(
    '%j is rejected as a complete value',
    (text) => {
      expect(compactJsonText(text)).toBeNull();
    },
  );

  test('broken or truncated input still closes as valid JSON, the same for every split', () => {
    const broken = ['{"a": [1, {"b": "x', '{"a": 1, "b": tru', '{"a": [1, 2], "b": @@@, "c": 3}', '{"k": "v", "n": 12', '{"x": {"y": [', '{"a": "\\ud83d'];
    for (const text of broken) {
      const whole = streamCompact([text]).out;
      expect(() => JSON.parse(whole)).not.toThrow();
      for (const parts of randomSplits(text, 40, 5, 4)) expect(streamCompact(parts).out).toBe(whole);
    }
    expect(streamCompact(['{"a": [1, {"b": "x']).out).toBe('{"a":[1,{"b":"x"}]}');
    expect(streamCompact(['{"k": "v", "n": 12']).out).toBe('{"k":"v","n":12}');
    expect(streamCompact(['{"a": [1, 2], "b": @@@, "c": 3}']).out).toBe('{"a":[1,2]}');
    expect(streamCompact(['{"a": "\\ud83d']).out).toBe('{"a":"\\ud83d"}');
  });

  test('objectOnly skips a top-level value that is not an object', () => {
    expect(streamCompact(['[1, {"a": 2}]'], { objectOnly: true })).toEqual({ out: '', started: false });
    expect(streamCompact(['"text"'], { objectOnly: true })).toEqual({ out: '', started: false });
    expect(streamCompact(['{"a": [1]}'], { objectOnly: true })).toEqual({ out: '{"a":[1]}', started: true });
  });

  test('the scanner stops at the end of the value and at the first bad character', () => {
    const sc = new JsonScanner(0, { dialect: MODEL_JSON });
    expect(sc.scan('{"a": 1} trailing')).toBe(Ev.Done);
    expect(sc.pos).toBe(8);
    const sc2 = new JsonScanner(0, { dialect: MODEL_JSON });
    expect(sc2.scan('[1, <|end|>')).toBe(Ev.Error);
    expect(sc2.pos).toBe(4);
  });
});

describe('Python literals', () => {
  test('repr() of lists and dicts', () => {
    expect(compactJsonText("{'a': True, 'b': None, 'c': 'it\\'s', \"d\": [1, 2,], 'e': False}", true)).toBe('{"a":true,"b":null,"c":"it\'s","d":[1,2],"e":false}');
    expect(compactJsonText("'tab\\there \\x41\\u00e9 \\U0001F600'", true)).toBe('"tab\\there Aé 😀"');
    expect(compactJsonText("'keep \\d unknown'", true)).toBe('"keep \\\\d unknown"');
    expect(compactJsonText("{'a': True}")).toBeNull();
  });

  test('over every split of a short literal', () => {
    const text = "['a', True]";
    for (const parts of allSplits(text)) expect(streamCompact(parts, { python: true }).out).toBe('["a",true]');
  });
});
