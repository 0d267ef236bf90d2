/**
 * Tool-parser micro-benchmark: ns per `push()` for each JSON-family parser, on plain text (the
 * per-token path every chat response with tools takes) and on a tool call in the parser's own
 * format, both fed in token-sized deltas (1–6 characters).
 *
 *   npx tsx scripts/tool-parser-bench.ts [--rounds R] [--chars N]
 */
import { JSON_FAMILY_TOOL_PARSERS } from '../src/pipeline/parsers/tools/registry-json.js';
import type { ToolParserSpec } from '../src/pipeline/parsers/tools/types.js';
import { FIXTURES, TOOLS } from '../test/fixtures/tools/json-family.js';
import { rng } from '../test/support/splits.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const rounds = Number(arg('rounds', '5'));
const chars = Number(arg('chars', '200000'));

function deltas(text: string, seed: number): string[] {
  const next = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(next() * 6);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function plainText(n: number): string {
  const words = ['the', 'weather', 'in', 'Paris', 'is', 'mild,', 'with', 'light', 'rain', 'expected.', 'Café', '東京', '😀', '\n\n'];
  const next = rng(1);
  let s = '';
  while (s.length < n) s += words[Math.floor(next() * words.length)] + ' ';
  return s;
}

/** Items seen, so the work is not optimized away. */
let seen = 0;

/** ns per push over `rounds` runs after a warm-up run (best run), feeding `parts` to fresh parsers `repeat` times. */
function measure(spec: ToolParserSpec, parts: string[], repeat: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = -1; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < repeat; k++) {
      const p = spec.create(TOOLS);
      for (const d of parts) seen += p.push(d).length;
      seen += p.finish().length;
    }
    if (r < 0) continue;
    const ns = Number(process.hrtime.bigint() - t0) / (parts.length * repeat);
    if (ns < best) best = ns;
  }
  return best;
}

const plain = deltas(plainText(chars), 2);
console.log(`ns per push (best of ${rounds}); plain text: ${plain.length} deltas; call: the parser's fixture, repeated`);
console.log('parser'.padEnd(12), 'plain'.padStart(8), 'call'.padStart(8), '  call fixture');
for (const spec of JSON_FAMILY_TOOL_PARSERS) {
  const fixture = FIXTURES.find((f) => f.parser === spec.name) ?? FIXTURES.find((f) => f.parser === 'qwen_xml' && spec.name !== 'passthrough');
  const plainNs = measure(spec, plain, 1);
  let callNs = Number.NaN;
  let label = '-';
  if (fixture) {
    const parts = deltas(fixture.text, 3);
    callNs = measure(spec, parts, Math.max(1, Math.floor(50000 / parts.length)));
    label = fixture.name;
  }
  console.log(spec.name.padEnd(12), plainNs.toFixed(0).padStart(8), (Number.isNaN(callNs) ? '-' : callNs.toFixed(0)).padStart(8), ' ', label);
}
if (seen === 0) console.log('no output?');
