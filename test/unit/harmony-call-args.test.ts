import { describe, expect, it } from 'vitest';
import { CallArgumentsStream, finalArguments, hasDuplicateKeys } from '../../src/pipeline/harmony/call-args.js';

function stream(parts: string[]): { pieces: string[]; folded: string } {
  const s = new CallArgumentsStream();
  const pieces = parts.map((p) => s.push(p));
  pieces.push(s.finish());
  return { pieces, folded: pieces.join('') };
}

describe('Harmony call arguments', () => {
  it('reports compact JSON for valid arguments and the text itself otherwise', () => {
    expect(finalArguments('{ "a": [1, 2] }')).toBe('{"a":[1,2]}');
    expect(finalArguments('{"a": 1')).toBe('{"a": 1');
    expect(finalArguments('{"a":1,"\\u0061":2}')).toBe('{"a":1,"\\u0061":2}');
    expect(finalArguments('')).toBe('');
  });

  it('finds repeated keys per object, through escapes, not across objects', () => {
    expect(hasDuplicateKeys('{"a":1,"b":{"a":2}}')).toBe(false);
    expect(hasDuplicateKeys('[{"a":1},{"a":2}]')).toBe(false);
    expect(hasDuplicateKeys('{"a":1,"b":["a"],"\\u0061":3}')).toBe(true);
    expect(hasDuplicateKeys('{"k":"x\\":","k" : 1}')).toBe(true);
    expect(hasDuplicateKeys('"no objects"')).toBe(false);
  });

  it('streams compact JSON as soon as it is safe', () => {
    // A pending number (and so its key) waits; closers wait until the text is complete.
    expect(stream(['{"city":"Pa', 'ris","n":1', '2}'])).toEqual({ pieces: ['{"city":"Pa', 'ris', '","n":12', '}'], folded: '{"city":"Paris","n":12}' });
  });

  it('holds spaced JSON from the first difference to the end', () => {
    const { pieces, folded } = stream(['{"a": ', '1, "b"', ': 2}']);
    expect(pieces).toEqual(['{', '"a":', '', '1,"b":2}']);
    expect(folded).toBe('{"a":1,"b":2}');
  });

  it('never sends text that invalid JSON would contradict', () => {
    const { pieces, folded } = stream(['{"a":1,', '"b":"x"', ' oops']);
    expect(folded).toBe('{"a":1,"b":"x" oops');
    expect(pieces.slice(0, 2)).toEqual(['{"a":1', ',"b":"x']);
  });
});
