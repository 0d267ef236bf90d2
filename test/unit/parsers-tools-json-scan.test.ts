/**
 * The readers under the JSON-family tool parsers, against the reference they stand in for:
 * JsonScanner's compact output against `JSON.stringify(JSON.parse(text))` for random JSON spelled
 * with random whitespace and escapes, in random chunks; its `close()` against JSON.parse for every
 * prefix; PyScanner against the values random Python reprs stand for; the string writer against
 * `JSON.stringify` for strings with lone surrogates; the schema typing of qwen_xml values.
 */
import { describe, expect, it } from 'vitest';
import { JsonStringWriter } from '../../src/pipeline/parsers/tools/compact-writer.js';
import { Ev, JsonScanner } from '../../src/pipeline/parsers/tools/json-scan.js';
import { MarkerFinder } from '../../src/pipeline/parsers/tools/marker-finder.js';
import { paramType, typedValue } from '../../src/pipeline/parsers/tools/param-typing.js';
import { PyScanner, pyLiteralToJson } from '../../src/pipeline/parsers/tools/py-literal.js';
import { rng } from '../support/splits.js';

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

const CHARS = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\u0001', 'é', '東', '😀', '\ud800', '\udc00', '\u2028'];

function randomString(r: Rand): string {
  let s = '';
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) s += pick(r, CHARS);
  return s;
}

function randomValue(r: Rand, depth: number): unknown {
  const k = Math.floor(r() * (depth > 2 ? 5 : 7));
  switch (k) {
    case 0:
      return pick(r, [0, -0, 1, -12, 3.25, 1e21, 1e-7, 123456789, 0.1]);
    case 1:
      return pick(r, [true, false, null]);
    case 2:
    case 3:
    case 4:
      return randomString(r);
    case 5:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const n = Math.floor(r() * 4);
      for (let i = 0; i < n; i++) o[randomString(r) + i] = randomValue(r, depth + 1);
      return o;
    }
  }
}

/** A JSON spelling of `v` with random whitespace, `\u` escapes and number forms. */
function spell(r: Rand, v: unknown): string {
  const ws = () => pick(r, ['', '', ' ', '\n  ', '\t']);
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (Object.is(v, -0)) return '-0';
    if (v === 3.25 && r() < 0.5) return '325e-2';
    if (v === 1 && r() < 0.5) return '1.0';
    return JSON.stringify(v);
  }
  if (typeof v === 'string') {
    let s = '"';
    for (const ch of v) {
      for (let i = 0; i < ch.length; i++) {
        const c = ch.charCodeAt(i);
        if (c === 0x22 || c === 0x5c) s += '\\' + ch[i];
        else if (c < 0x20 || r() < 0.2) s += '\\u' + c.toString(16).padStart(4, '0');
        else if (c === 0x2f && r() < 0.5) s += '\\/';
        else s += ch[i];
      }
    }
    return s + '"';
  }
  if (Array.isArray(v)) return '[' + ws() + v.map((x) => spell(r, x)).join(ws() + ',' + ws()) + ws() + ']';
  const o = v as Record<string, unknown>;
  return '{' + ws() + Object.keys(o).map((k) => spell(r, k) + ws() + ':' + ws() + spell(r, o[k])).join(',' + ws()) + ws() + '}';
}

function scanInChunks(text: string, r: Rand): { out: string; ev: Ev } {
  const sc = new JsonScanner(0);
  sc.capture = true;
  let buf = '';
  let out = '';
  let ev = Ev.More;
  for (let i = 0; i < text.length && ev === Ev.More; ) {
    const n = 1 + Math.floor(r() * 7);
    buf += text.slice(i, i + n);
    i += n;
    ev = sc.scan(buf);
    out += sc.out;
    sc.out = '';
  }
  if (ev === Ev.More) ev = sc.endOfInput();
  return { out: out + sc.out, ev };
}

describe('JsonScanner', () => {
  it('writes exactly JSON.stringify(JSON.parse(text)), in any chunking', () => {
    const r = rng(7);
    for (let k = 0; k < 3000; k++) {
      const v = randomValue(r, 0);
      const text = spell(r, v);
      const { out, ev } = scanInChunks(text, r);
      expect(ev, text).toBe(Ev.Done);
      expect(out, text).toBe(JSON.stringify(JSON.parse(text)));
    }
  });

  it('reports errors for text JSON.parse rejects', () => {
    for (const bad of ['{"a" 1}', '[1,]', '{"a":1,}', '[01]', '"\\x"', '{"a":tru}', '[1}', '{1:2}', '-', '1.', '"\\u12g4"']) {
      const sc = new JsonScanner(0);
      let ev = sc.scan(bad);
      if (ev === Ev.More) ev = sc.endOfInput();
      expect(ev === Ev.Error || ev === Ev.More, bad).toBe(true);
      expect(ev, bad).not.toBe(Ev.Done);
    }
  });

  it('close() makes every cut-off prefix valid JSON that the full value extends', () => {
    const r = rng(11);
    for (let k = 0; k < 300; k++) {
      const v = { args: randomValue(r, 0), more: [randomValue(r, 1)] };
      const text = spell(r, v);
      for (let n = 1; n < text.length; n++) {
        const sc = new JsonScanner(0);
        sc.capture = true;
        const ev = sc.scan(text.slice(0, n));
        if (ev !== Ev.More) continue;
        const sent = sc.out;
        const closed = sent + sc.close();
        expect(() => JSON.parse(closed), `${text.slice(0, n)} → ${closed}`).not.toThrow();
        expect(JSON.stringify(JSON.parse(text)).startsWith(sent), text.slice(0, n)).toBe(true);
      }
    }
  });
});

describe('JsonStringWriter', () => {
  it('matches JSON.stringify for any string cut anywhere, lone surrogates included', () => {
    const r = rng(3);
    for (let k = 0; k < 2000; k++) {
      let s = '';
      for (let i = 0; i < 12; i++) s += pick(r, CHARS);
      const w = new JsonStringWriter();
      let out = '';
      for (let i = 0; i < s.length; ) {
        const n = 1 + Math.floor(r() * 3);
        out += w.write(s.slice(i, i + n));
        i += n;
      }
      out += w.end();
      expect('"' + out + '"').toBe(JSON.stringify(s));
    }
  });
});

/** A Python repr of `v` with random quoting, spacing and number forms. */
function pyRepr(r: Rand, v: unknown): string {
  const ws = () => pick(r, ['', ' ', '\n']);
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) < 1e15 && r() < 0.3) return (v < 0 ? '-0x' : '0x') + Math.abs(v).toString(16);
    return Object.is(v, -0) ? '-0' : String(v);
  }
  if (typeof v === 'string') {
    const q = pick(r, ["'", '"']);
    let s = q;
    for (const ch of v) {
      const c = ch.codePointAt(0) as number;
      if (ch === q || ch === '\\') s += '\\' + ch;
      else if (ch === '\n') s += '\\n';
      else if (c < 0x20) s += '\\x' + c.toString(16).padStart(2, '0');
      else if (c >= 0xd800 && c <= 0xdfff) s += '\\u' + c.toString(16);
      else if (c > 0xffff && r() < 0.5) s += '\\U' + c.toString(16).padStart(8, '0');
      else s += ch;
    }
    return s + q;
  }
  if (Array.isArray(v)) {
    const inner = v.map((x) => pyRepr(r, x)).join(',' + ws());
    return r() < 0.5 || v.length === 1 ? '[' + inner + ']' : '(' + inner + ')';
  }
  const o = v as Record<string, unknown>;
  return '{' + Object.keys(o).map((k) => pyRepr(r, k) + ws() + ':' + ws() + pyRepr(r, o[k])).join(', ') + '}';
}

describe('PyScanner', () => {
  it('reads Python reprs as the JSON of the value they stand for', () => {
    const r = rng(5);
    for (let k = 0; k < 2000; k++) {
      const v = randomValue(r, 0);
      const text = pyRepr(r, v);
      expect(pyLiteralToJson(text), text).toBe(JSON.stringify(v));
    }
  });

  it('reads keyword arguments in any chunking, and closes every cut into valid JSON', () => {
    const r = rng(9);
    for (let k = 0; k < 300; k++) {
      const args: Record<string, unknown> = { a: randomValue(r, 1), b_2: randomValue(r, 1) };
      const text = `a=${pyRepr(r, args.a)}, b_2 = ${pyRepr(r, args.b_2)})`;
      const sc = new PyScanner(0, true);
      let out = '';
      let ev = Ev.More;
      let buf = '';
      for (let i = 0; i < text.length && ev === Ev.More; i += 3) {
        buf += text.slice(i, i + 3);
        ev = sc.scan(buf);
        out += sc.out;
        sc.out = '';
      }
      expect(ev, text).toBe(Ev.Done);
      expect(out, text).toBe(JSON.stringify(args));
      for (let n = 1; n < text.length; n += 2) {
        const cut = new PyScanner(0, true);
        if (cut.scan(text.slice(0, n)) !== Ev.More) continue;
        const closed = cut.out + cut.close();
        expect(() => JSON.parse(closed), `${text.slice(0, n)} → ${closed}`).not.toThrow();
      }
    }
  });

  it('maps the literals SMG maps, and rejects what is not a literal', () => {
    expect(pyLiteralToJson("{'k': (1,), 2: None, True: 'x'}")).toBe('{"k":[1],"2":null,"true":"x"}');
    expect(pyLiteralToJson("[r'\\d+', '''a\nb''', 1_000, 0o17, 0b11, .5, 5., -2e3, celsius]")).toBe('["\\\\d+","a\\nb",1000,15,3,0.5,5,-2000,"celsius"]');
    expect(pyLiteralToJson('12345678901234567890123')).toBe('12345678901234567890123');
    for (const bad of ['f(1)', 'a.b', '1 + 2', '{1, 2}', "'open", '[1, 2', '1j']) expect(pyLiteralToJson(bad), bad).toBeNull();
  });
});

describe('qwen_xml value typing', () => {
  const tool = {
    name: 't',
    parameters: {
      properties: {
        s: { type: 'string' },
        i: { type: 'integer' },
        n: { type: 'number' },
        b: { type: 'boolean' },
        o: { type: 'object' },
        a: { type: 'array' },
        ns: { type: ['string', 'null'] },
        any: { anyOf: [{ type: 'null' }, { type: 'integer' }] },
        e: { enum: ['x', 'y'] },
      },
    },
  };
  const typed = (key: string, raw: string) => typedValue(raw, paramType(tool, key));

  it('types values by the schema and infers the rest', () => {
    expect(typed('s', '0042')).toBe('"0042"');
    expect(typed('s', 'true')).toBe('"true"');
    expect(typed('i', ' 7 ')).toBe('7');
    expect(typed('i', 'seven')).toBe('"seven"');
    expect(typed('n', '-1.50')).toBe('-1.5');
    expect(typed('b', 'True')).toBe('true');
    expect(typed('b', 'FALSE')).toBe('false');
    expect(typed('o', '{"k": [1]}')).toBe('{"k":[1]}');
    expect(typed('o', "{'k': None}")).toBe('{"k":null}');
    expect(typed('a', 'not a list')).toBe('"not a list"');
    expect(typed('ns', 'None')).toBe('null');
    expect(typed('ns', 'text')).toBe('"text"');
    expect(typed('any', 'null')).toBe('null');
    expect(typed('any', '12')).toBe('12');
    expect(typed('e', '1')).toBe('"1"');
    expect(typed('undeclared', '3.5')).toBe('3.5');
    expect(typed('undeclared', 'None')).toBe('null');
    expect(typed('undeclared', 'plain words')).toBe('"plain words"');
  });
});

describe('MarkerFinder', () => {
  it('finds what a fresh indexOf would, as the buffer grows, is read further and loses its front', () => {
    const r = rng(17);
    const markers = ['<a>', '[', '<ab>'];
    const pieces = ['x', '<', 'a', '>', '[', 'b', '<ab>', 'yy'];
    for (let k = 0; k < 300; k++) {
      const f = new MarkerFinder(markers);
      let buf = '';
      let from = 0;
      let dropped = 0;
      for (let step = 0; step < 40; step++) {
        const op = r();
        if (op < 0.5) buf += pick(r, pieces);
        else if (op < 0.8) from = Math.min(buf.length, from + Math.floor(r() * 3));
        else {
          const n = Math.floor(r() * (from + 1));
          buf = buf.slice(n);
          from -= n;
          dropped += n;
        }
        let at = -1;
        let which = '';
        for (const m of markers) {
          const i = buf.indexOf(m, from);
          if (i !== -1 && (at === -1 || i < at || (i === at && m.length > which.length))) [at, which] = [i, m];
        }
        expect(f.find(buf, from, dropped)).toEqual([at, which]);
      }
    }
  });
});
