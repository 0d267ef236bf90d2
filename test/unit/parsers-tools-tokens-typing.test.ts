/**
 * Schema typing of key/value arguments (GLM, MiniMax, Step-3) and the incremental argument
 * object writer.
 */
import { describe, expect, test } from 'vitest';
import { ArgsObjectWriter } from '../../src/pipeline/parsers/tools/args-object.js';
import { ParamTypes, typedValueJson } from '../../src/pipeline/parsers/tools/param-typing.js';

describe('ParamTypes', () => {
  const types = new ParamTypes({
    name: 't',
    parameters: {
      type: 'object',
      properties: {
        s: { type: 'string' },
        i: { type: 'integer' },
        sn: { type: ['string', 'null'] },
        any: { anyOf: [{ type: 'integer' }, { type: 'boolean' }] },
        free: { description: 'no type' },
      },
    },
  });

  test('only a plain string parameter streams', () => {
    expect(types.typing('s')).toEqual({ stream: true });
    expect(types.typing('i')).toEqual({ stream: false, types: ['integer'] });
    expect(types.typing('sn')).toEqual({ stream: false, types: ['string', 'null'] });
    expect(types.typing('any')).toEqual({ stream: false, types: ['integer', 'boolean'] });
    expect(types.typing('free')).toEqual({ stream: false, types: [] });
    expect(types.typing('missing')).toEqual({ stream: false, types: [] });
    expect(types.typing('__proto__')).toEqual({ stream: false, types: [] });
    expect(new ParamTypes({ name: 'bare' }).typing('x')).toEqual({ stream: false, types: [] });
  });
});

describe('typedValueJson', () => {
  test.each([
    ['42', ['integer'], '42'],
    [' 42\n', ['integer'], '42'],
    ['98765432109876543210', ['integer'], '98765432109876543210'],
    ['abc', ['integer'], '"abc"'],
    ['1e3', ['number'], '1000'],
    ['-0.50', ['number'], '-0.5'],
    ['True', ['boolean'], 'true'],
    ['false', ['boolean'], 'false'],
    ['yes', ['boolean'], '"yes"'],
    ['None', ['null'], 'null'],
    ['[1, "a"]', ['array'], '[1,"a"]'],
    ['{"a": {"b": []}}', ['object'], '{"a":{"b":[]}}'],
    ['{"a": 1}', ['array'], '{"a":1}'],
    ['null', ['string', 'null'], 'null'],
    [' hello ', ['string', 'null'], '" hello "'],
    ['7', ['string', 'integer'], '7'],
    ['{"a": 1}', [], '{"a":1}'],
    [' 5 ', [], '5'],
    ['  text with spaces  ', [], '"  text with spaces  "'],
    ['{broken', [], '"{broken"'],
  ] as const)('%j typed %j → %s', (raw, types, json) => {
    expect(typedValueJson(raw, types)).toBe(json);
  });
});

describe('ArgsObjectWriter', () => {
  test('members, streamed strings and closing', () => {
    const w = new ArgsObjectWriter();
    let out = w.open();
    out += w.beginString('a"b');
    out += w.stringChunk('x\n');
    out += w.stringChunk('\ud83d');
    out += w.stringChunk('\ude00y');
    out += w.endString();
    expect(w.isRepeat('a"b')).toBe(true);
    out += w.member('n', '1');
    out += w.beginString('open');
    out += w.stringChunk('cut');
    out += w.close();
    expect(out).toBe('{"a\\"b":"x\\n😀y","n":1,"open":"cut"}');
    expect(JSON.parse(out)).toEqual({ 'a"b': 'x\n😀y', n: 1, open: 'cut' });
  });
});
