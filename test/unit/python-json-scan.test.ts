/**
 * lossyTokensFrom (python-json.ts) scans by hand what it used to scan with a regex; here it is held
 * to that regex token for token — lossy flag, stops, depth, counts and every resume offset — on
 * hand-picked cases and on random text, valid JSON or not.
 */
import { describe, expect, it } from 'vitest';
import { lossyTokensFrom, newLossyScan, type LossyScan } from '../../src/pipeline/chat-prompt/template-compiler/python-json.js';
import { tooDeepAt } from '../../src/util/json-depth.js';

/** The former scan, verbatim: the oracle. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[[{]|[\]}]/g;
function isLossy(m: RegExpExecArray): boolean {
  const t = m[0];
  if (t.charCodeAt(0) === 34) return m[1] !== undefined && /^"(0|[1-9]\d*|__proto__)"/.test(t);
  return t.includes('.') || t.includes('e') || t.includes('E') || t.length > 15;
}
function oracle(text: string, from: number, until: number, scan: LossyScan, firstOnly = false): number | null {
  TOKENS.lastIndex = from;
  let n = 0;
  for (let m = TOKENS.exec(text); m !== null; m = TOKENS.exec(text)) {
    const c = m[0].charCodeAt(0);
    if (c === 0x7b || c === 0x5b) {
      if (scan.depth === 0 && c === 0x5b) scan.counts = 1;
      scan.depth++;
    } else if (c === 0x7d || c === 0x5d) {
      scan.depth--;
    } else if (isLossy(m)) {
      if (scan.depth >= scan.counts) {
        scan.lossy = true;
        if (firstOnly) return null;
      }
      scan.stops.push(m.index);
    } else if (m[0] === '-0') {
      scan.stops.push(m.index);
    }
    if ((++n & 63) === 0 && performance.now() >= until) return TOKENS.lastIndex;
  }
  return null;
}

/** Both scans over `text`, whole and in resumed slices, must agree at every step. */
function agree(text: string): void {
  for (const firstOnly of [false, true]) {
    const [a, b] = [newLossyScan(), newLossyScan()];
    expect(lossyTokensFrom(text, 0, Infinity, a, firstOnly), text).toBe(oracle(text, 0, Infinity, b, firstOnly));
    expect(a, text).toEqual(b);
  }
  // until = -Infinity: a pause after every 64 tokens, so the resume offsets are compared too.
  const [a, b] = [newLossyScan(), newLossyScan()];
  let [ra, rb]: (number | null)[] = [0, 0];
  while (ra !== null || rb !== null) {
    ra = lossyTokensFrom(text, ra!, -Infinity, a);
    rb = oracle(text, rb!, -Infinity, b);
    expect(ra, text).toBe(rb);
    expect(a, text).toEqual(b);
  }
}

describe('lossyTokensFrom: the hand scan reads the tokens the regex read', () => {
  it('on chosen cases', () => {
    const cases = [
      '{"model":"m","messages":[{"role":"user","content":"hi 1.5 {x}"}],"temperature":0.7,"max_tokens":1,"stream":true}',
      '{"a":{"b":1.0,"c":-0,"d":12345678901234567,"e":1e5,"f":2E-3,"g":-0.0}}',
      '{"x":{"0":1,"01":2,"10":3,"__proto__":4,"__proto__x":5,"":6,"1a":7}}',
      '[1.5, {"1": -0}]',
      '{"s":"esc \\" quote \\\\ back \\n nl","t" \u00a0 :\u2028 [1]}',
      '{"k" :1,"k2"\t:\n2.5}',
      '"unterminated',
      '"bad escape \\\n" 1.5 ]',
      '-- -x - 5 -.5 1. 1e 1e+ 1e+5 0.5e-7 .5 -',
      '{"a":[[[[]]]]}}}]]] {{',
      '',
      '"' + 'a'.repeat(2000) + '\\"' + 'b'.repeat(100) + '":1.0',
    ];
    for (const t of cases) agree(t);
  });

  it('on random text, valid JSON or not', () => {
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pieces = ['"', '\\', ':', ' ', '\u00a0', '\n', '\u2028', '{', '}', '[', ']', ',', '-', '.', 'e', 'E', '+', '0', '1', '9', 'a', '_', '__proto__', '"0"', '"12"', '1.5', '-0', 'true'];
    for (let round = 0; round < 3000; round++) {
      let t = '';
      const len = Math.floor(rand() * 80);
      for (let i = 0; i < len; i++) t += pieces[Math.floor(rand() * pieces.length)];
      agree(t);
    }
    // Valid JSON with nested floats and integer-like keys, long enough to pause and resume.
    for (let round = 0; round < 50; round++) {
      const obj: Record<string, unknown> = {};
      for (let i = 0; i < 100; i++) obj[rand() < 0.2 ? String(i) : `k${i}`] = rand() < 0.5 ? rand() * 100 : { v: [Math.floor(rand() * 10), rand() < 0.1 ? -0 : 1, 'x"y\\z'] };
      agree(JSON.stringify({ top: 0.5, nested: obj }).replace('"v"', '"v" :'));
    }
  });
});

/** The former depth scan (util/json-depth.ts), with exec: the oracle for the test()-based one. */
function depthOracle(text: string, limit: number): number {
  const STRUCTURAL = /["[\]{}]/g;
  const IN_STRING = /["\\]/g;
  let depth = 0;
  let i = 0;
  let inString = false;
  for (;;) {
    if (inString) {
      IN_STRING.lastIndex = i;
      const s = IN_STRING.exec(text);
      if (s === null) return -1;
      if (text.charCodeAt(s.index) === 0x5c) i = s.index + 2;
      else {
        i = s.index + 1;
        inString = false;
      }
      continue;
    }
    STRUCTURAL.lastIndex = i;
    const m = STRUCTURAL.exec(text);
    if (m === null) return -1;
    const c = text.charCodeAt(m.index);
    i = m.index + 1;
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth >= limit) return m.index;
    } else depth--;
  }
}

describe('tooDeepAt finds what the exec-based scan found', () => {
  it('on random text and deep nests', () => {
    let seed = 777;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pieces = ['"', '\\', '[', ']', '{', '}', 'a', ' ', '\\"', '"x"'];
    for (let round = 0; round < 3000; round++) {
      let t = '';
      const len = Math.floor(rand() * 120);
      for (let i = 0; i < len; i++) t += pieces[Math.floor(rand() * pieces.length)];
      for (const limit of [2, 3, 5, 128]) expect(tooDeepAt(t, limit), t).toBe(depthOracle(t, limit));
    }
    const deep = '['.repeat(200) + ']'.repeat(200);
    expect(tooDeepAt(deep)).toBe(depthOracle(deep, 128));
    expect(tooDeepAt('{"a":"[[[[","b":[[1]]}', 3)).toBe(depthOracle('{"a":"[[[[","b":[[1]]}', 3));
  });
});
