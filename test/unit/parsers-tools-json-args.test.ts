/**
 * JsonArgsStream (the shared streamed-arguments helper): pieces sent while the text grows are
 * always a prefix of the final compact form, and `complete()` sends exactly the rest, whether the
 * text grows by appending (incremental reading) or changes shape (re-parse fallback).
 */
import { describe, expect, it } from 'vitest';
import { compactJson, JsonArgsStream, stableJsonPrefix } from '../../src/pipeline/parsers/tools/json-args.js';
import { rng } from '../support/splits.js';

const SAMPLES = [
  '{"city": "São Paulo", "days": 3, "tags": ["a", "b"], "nested": {"x": null, "y": [1.50, -2e3, true]}}',
  '{"q": "emoji \\ud83d\\ude00 and \\u00e9", "n": 12345678}',
  '[1, {"k": "v"}, "s", false]',
  '{"a": "line\\nbreak \\"quoted\\" back\\\\slash"}',
  '{}',
];

describe('JsonArgsStream', () => {
  it('sends prefixes of the compact form while text is appended, then exactly the rest', () => {
    const next = rng(13);
    for (const raw of SAMPLES) {
      const compact = compactJson(raw) as string;
      for (let k = 0; k < 40; k++) {
        const s = new JsonArgsStream();
        let sent = '';
        for (let i = 0; i < raw.length; ) {
          i += 1 + Math.floor(next() * 5);
          sent += s.partial(raw.slice(0, i));
          expect(compact.startsWith(sent), `${raw.slice(0, i)} → ${sent}`).toBe(true);
          expect(s.emitted).toBe(sent);
        }
        sent += s.complete(compact);
        expect(sent).toBe(compact);
      }
    }
  });

  it('streams long string arguments as they grow', () => {
    const s = new JsonArgsStream();
    expect(s.partial('{"content": "hel')).toBe('{"content":"hel');
    expect(s.partial('{"content": "hello wor')).toBe('lo wor');
    expect(s.partial('{"content": "hello world", "n": 1')).toBe('ld","n":');
    expect(s.complete('{"content":"hello world","n":12}')).toBe('12}');
  });

  it('falls back to re-parsing when the text does not extend the last one', () => {
    const s = new JsonArgsStream();
    expect(s.partial('{"a": "x')).toBe('{"a":"x');
    // A caller that rebuilds its JSON text: the new text is not an extension of the old one.
    expect(s.partial('{"a":"xy","b":')).toBe('y');
    expect(s.complete('{"a":"xy","b":2}')).toBe('","b":2}');
    expect(stableJsonPrefix('{"a": [1, 2')).toBe('{"a":[1');
  });

  it('sends nothing more once the text is not JSON', () => {
    const s = new JsonArgsStream();
    expect(s.partial('{"a": 1, ')).toBe('{"a":1');
    expect(s.partial('{"a": 1, oops')).toBe('');
  });
});
