/**
 * Reasoning-parser micro-benchmark: ns per push() of the qwen3 parser over a 4k-token-like
 * stream (one word-sized delta per token, as the detokenizer releases them).
 *
 *   npx tsx scripts/parser-bench.ts [--tokens N] [--rounds R]
 *
 * Streams: "no markers" (plain prose, the per-token fast path), "with markers" (a
 * `<think>…</think>` block followed by the answer, markers arriving as single tokens as Qwen3
 * emits them), "split markers" (the same with every marker cut into 1-3 character deltas), and
 * "html" (prose full of `<` that keeps the scanner off its fast path).
 */
import { REASONING_PARSERS } from '../src/pipeline/parsers/reasoning/registry.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const tokens = Number(arg('tokens', '4096'));
const rounds = Number(arg('rounds', '20'));

const spec = REASONING_PARSERS.get('qwen3');
if (spec === undefined) throw new Error('qwen3 parser missing');

const WORDS = (
  'the gateway streams tokens from the engine and turns them into text before applying stop ' +
  'strings so every request keeps a small amount of state while the parser decides which field ' +
  'each piece belongs to'
).split(' ');

function prose(n: number, html = false): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = WORDS[i % WORDS.length];
    out.push(html && i % 5 === 0 ? ` <b>${w}</b>` : i % 17 === 16 ? `${w}.\n\n` : ` ${w}`);
  }
  return out;
}

function splitSmall(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    const n = 1 + (i % 3);
    out.push(s.slice(i, i + n));
    i += n;
  }
  return out;
}

const half = Math.floor(tokens / 2);
const streams: Array<[string, string[]]> = [
  ['no markers', prose(tokens)],
  ['with markers', ['<think>', '\n', ...prose(half - 4), '\n', '</think>', '\n\n', ...prose(tokens - half)]],
  ['split markers', [...splitSmall('<think>\n'), ...prose(half - 8), ...splitSmall('\n</think>\n\n'), ...prose(tokens - half)]],
  ['html', prose(tokens, true)],
];

const opts = { startInReasoning: false, startMarkerConsumed: false };
let sink = 0;
for (const [name, deltas] of streams) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    const p = spec.create(opts);
    for (const d of deltas) sink += p.push(d).length;
    sink += p.finish().length;
    const ns = Number(process.hrtime.bigint() - t0) / deltas.length;
    if (ns < best) best = ns;
  }
  console.log(`${name.padEnd(14)} ${String(deltas.length).padStart(6)} pushes  ${best.toFixed(1).padStart(7)} ns/push`);
}
if (sink < 0) console.log(sink);
