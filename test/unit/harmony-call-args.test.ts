import { describe, expect, it } from 'vitest';
import { CallArgumentsStream, finalArguments } from '../../src/pipeline/harmony/call-args.js';
import { JsonScanner } from '../../src/pipeline/parsers/tools/json-scan.js';
import type { JsonSpelling } from '../../src/pipeline/parsers/tools/json-spelling.js';
import { randomSplits, rng } from '../support/splits.js';

function scanned(text: string): JsonSpelling {
  const s = new JsonScanner(0, { spelling: true });
  s.scan(text);
  return s.spelling as JsonSpelling;
}

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

  it('keeps JSON verbatim when parsing would move keys (repeated or integer-like keys)', () => {
    expect(finalArguments('{"a":1,"b":{"a":2}}')).toBe('{"a":1,"b":{"a":2}}');
    expect(finalArguments('[{"a":1},{"a":2}]')).toBe('[{"a":1},{"a":2}]');
    expect(finalArguments('{"a":1, "b":["a"], "\\u0061":3}')).toBe('{"a":1, "b":["a"], "\\u0061":3}');
    expect(finalArguments('{"k":"x\\":","k" : 1}')).toBe('{"k":"x\\":","k" : 1}');
    // JSON.stringify(JSON.parse('{"b":1,"1":2}')) is '{"1":2,"b":1}'.
    expect(finalArguments('{"b": 1, "1": 2}')).toBe('{"b": 1, "1": 2}');
    expect(finalArguments('{"1": 1, "2": 2, "b": 3}')).toBe('{"1":1,"2":2,"b":3}');
    expect(finalArguments('{"01": 1, "b": 2}')).toBe('{"01":1,"b":2}');
  });

  it('measures the prefix already in compact form', () => {
    const canonical = (t: string): string => t.slice(0, scanned(t).canonical);
    expect(canonical('{"a":[1,true,null],"b":"x\\n\\u001f"}')).toBe('{"a":[1,true,null],"b":"x\\n\\u001f"}');
    expect(canonical('{"a": 1}')).toBe('{"a":');
    expect(canonical('{"a":1.0,"b":2}')).toBe('{"a":');
    expect(canonical('{"a":"caf\\u00e9"}')).toBe('{"a":"caf');
    expect(canonical('{"a":"x\\/y"}')).toBe('{"a":"x');
    expect(canonical('{"a":"\\u001F"}')).toBe('{"a":"');
    expect(canonical('{"a":12')).toBe('{"a":'); // the number may go on
    expect(canonical('{"e":"😀')).toBe('{"e":"😀');
    expect(canonical('{"e":"\uD83D')).toBe('{"e":"'); // half a pair waits
    expect(canonical('{"a":tr')).toBe('{"a":');
  });

  it('streams compact JSON as soon as it is safe', () => {
    // Only a number that may still grow waits.
    expect(stream(['{"city":"Pa', 'ris","n":1', '2}'])).toEqual({ pieces: ['{"city":"Pa', 'ris","n":', '12}', ''], folded: '{"city":"Paris","n":12}' });
  });

  it('holds spaced JSON from the first difference to the end', () => {
    const { pieces, folded } = stream(['{"a": ', '1, "b"', ': 2}']);
    expect(pieces).toEqual(['{"a":', '', '', '1,"b":2}']);
    expect(folded).toBe('{"a":1,"b":2}');
  });

  it('never sends text that invalid JSON would contradict', () => {
    const { pieces, folded } = stream(['{"a":1,', '"b":"x"', ' oops']);
    expect(folded).toBe('{"a":1,"b":"x" oops');
    expect(pieces).toEqual(['{"a":1,', '"b":"x"', '', ' oops']);
  });

  it('never streams what the final text contradicts, over random non-canonical JSON spellings', () => {
    const next = rng(5);
    const pick = <T,>(a: readonly T[]): T => a[Math.floor(next() * a.length)];
    const ws = (): string => (next() < 0.15 ? pick([' ', '\n', '\t']) : '');
    const str = (): string =>
      `"${Array.from({ length: Math.floor(next() * 5) }, () =>
        pick(['a', 'é', '😀', '\\n', '\\"', '\\\\', '\\/', '\\u00e9', '\\u00E9', '\\u001f', '\\u001F', '\\b', '\\ud83d\\ude00', ' ', '<|']),
      ).join('')}"`;
    const num = (): string => pick(['0', '-0', '1', '1.0', '2.5', '1e2', '-3', '12345678901234567890', '1e21', '7e-7']);
    const val = (d: number): string => {
      const k = Math.floor(next() * (d > 2 ? 3 : 5));
      if (k === 0) return str();
      if (k === 1) return num();
      if (k === 2) return pick(['true', 'false', 'null']);
      if (k === 3) return `[${ws()}${Array.from({ length: Math.floor(next() * 3) }, () => val(d + 1)).join(`${ws()},${ws()}`)}${ws()}]`;
      const keys = Array.from({ length: Math.floor(next() * 4) }, () => pick(['"a"', '"b"', '"1"', '"2"', '"01"', '"\\u0061"', '"é"']));
      return `{${ws()}${keys.map((key) => `${key}${ws()}:${ws()}${val(d + 1)}`).join(`${ws()},${ws()}`)}${ws()}}`;
    };
    for (let i = 0; i < 1500; i++) {
      let raw = ws() + val(0) + ws();
      if (next() < 0.1) raw = raw.slice(0, Math.floor(next() * raw.length));
      const final = finalArguments(raw);
      for (let k = 0; k <= raw.length; k += 1 + Math.floor(next() * 4)) {
        const prefix = raw.slice(0, scanned(raw.slice(0, k)).canonical);
        if (!final.startsWith(prefix)) expect({ raw, k, prefix }).toEqual({ raw, k, prefix: final });
      }
      if (i % 10 === 0) for (const parts of randomSplits(raw, 3, i, 5)) expect(stream(parts).folded).toBe(final);
    }
  });
});
