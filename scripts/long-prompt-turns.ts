/**
 * The longest event-loop turn each stage of a long prompt takes in a gateway tree, measured in this
 * process with that tree's own modules: while a stage runs, a chain of setImmediate callbacks
 * records the time between consecutive check phases (one loop turn each; nothing else runs here),
 * so a stage done in one piece shows as one long turn and a sliced one as many short ones.
 *
 *   npx tsx scripts/long-prompt-turns.ts [--tree DIR] [--tokens 131072] [--messages 1] [--reps 7] [--cpu]
 *
 * Stages: body parse (readJsonBody on a Request), prompt thread round trip (render + encode on the
 * thread, ids back as number[]), ADD encode (vLLM dialect), cache_aware routing between two
 * workers (block chain, match, index insert); and body to ADD back to back as a request runs them
 * (where one stage's last piece runs on into the next). Min over reps of the longest turn, and of the
 * stage's total main-thread time (the sum of its turns).
 */
import { openSync, readSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBenchArgs } from './bench/args.js';
import { buildWorkloads } from './bench/workloads.js';
import { bodyBytes } from './bench/http-client.js';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
    tokens: { type: 'string', default: '131072' },
    messages: { type: 'string', default: '1' },
    reps: { type: 'string', default: '7' },
    cpu: { type: 'boolean', default: false },
  },
});
const tree = resolve(values.tree!);
const mod = async <T>(p: string) => (await import(pathToFileURL(join(tree, p)).href)) as T;

const { readJsonBody } = await mod<typeof import('../src/api/json-body.js')>('src/api/json-body.ts');
const { loadModelContext } = await mod<typeof import('../src/pipeline/model-context.js')>('src/pipeline/model-context.ts');
const { encodeAdd } = await mod<typeof import('../src/engine/dialects/vllm/request.js')>('src/engine/dialects/vllm/request.ts');
const { CacheAwarePolicy } = await mod<typeof import('../src/workers/policies/cache-aware.js')>('src/workers/policies/cache-aware.ts');
const { encodeChatPrompt } = await mod<typeof import('../src/pipeline/prompt-pool/encode-prompt.js')>('src/pipeline/prompt-pool/encode-prompt.ts');
const { buildTemplateKwargs } = await mod<typeof import('../src/pipeline/chat-prompt/chat-template-thinking.js')>('src/pipeline/chat-prompt/chat-template-thinking.ts');

const opts = parseBenchArgs(['--long-prompt-tokens', values.tokens!])!;
const w = await buildWorkloads(opts);
const body0 = JSON.parse(bodyBytes(w.httpBody('long', 'm')).toString()) as { messages: Array<{ role: string; content: string }> };
const n = Number(values.messages);
if (n > 1) {
  const text = body0.messages[0].content;
  const per = Math.ceil(text.length / n);
  body0.messages = Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: text.slice(i * per, (i + 1) * per) }));
  body0.messages[n - 1].role = 'user';
}
const ctx = await loadModelContext({ modelId: opts.model, source: opts.model, chatTemplate: null });
await ctx.prompts!.whenReady();
const template = ctx.template!;
const kwargs = buildTemplateKwargs({ chatTemplateKwargs: {}, toolChoice: undefined, reasoningEffort: undefined, responseFormat: undefined }, template.thinking);

/**
 * The clock turns are measured on: wall time by default; with --cpu the main thread's own CPU time
 * (schedstat, brought up to date by a getrusage first, as in scripts/bench/loop-probe.mjs), so a
 * busy box's preemptions do not count as turn length.
 */
const schedFd = values.cpu ? openSync(`/proc/self/task/${process.pid}/schedstat`, 'r') : -1;
const schedBuf = Buffer.alloc(96);
const clock = values.cpu
  ? () => {
      process.cpuUsage();
      const n = readSync(schedFd, schedBuf, 0, schedBuf.length, 0);
      const text = schedBuf.toString('latin1', 0, n);
      return Number(text.slice(0, text.indexOf(' '))) / 1e6;
    }
  : () => performance.now();

/** Runs `stage` with a turn recorder beside it: the longest turn and the busy total (ms). */
async function turns(stage: () => Promise<unknown> | unknown): Promise<{ longest: number; total: number }> {
  const gaps: number[] = [];
  let last = clock();
  let running = true;
  const tick = () => {
    const now = clock();
    gaps.push(now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  await new Promise((r) => setImmediate(r));
  last = clock();
  setImmediate(tick);
  await stage();
  running = false;
  await new Promise((r) => setImmediate(r));
  if (process.env.TURNS_DEBUG) console.log(gaps.filter((g) => g > 0.3).map((g) => g.toFixed(2)).join(' '));
  // Turns of the chain alone (waiting for the thread) take ~µs; count those over 0.05 ms as work.
  return { longest: Math.max(...gaps), total: gaps.filter((g) => g > 0.05).reduce((a, b) => a + b, 0) };
}

const reps = Number(values.reps);
async function stage(name: string, make: (rep: number) => () => Promise<unknown> | unknown): Promise<void> {
  const rs: Array<{ longest: number; total: number }> = [];
  for (let i = 0; i < reps + 1; i++) {
    const r = await turns(make(i));
    if (i > 0) rs.push(r); // the first one warms the JIT
  }
  const min = (f: (r: { longest: number; total: number }) => number) => Math.min(...rs.map(f)).toFixed(2);
  console.log(`${name.padEnd(40)} longest turn ${min((r) => r.longest).padStart(6)} ms   main-thread total ${min((r) => r.total).padStart(6)} ms`);
}

const bodyFor = (rep: number) => JSON.stringify({ ...body0, messages: [{ ...body0.messages[0], content: `Request ${rep}. ${body0.messages[0].content}` }, ...body0.messages.slice(1)] });
const request = (text: string) => new Request('http://gw/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
console.log(`tree ${tree}; ${values.tokens} tokens in ${n} message(s); min over ${reps} reps`);
await stage('body parse (readJsonBody)', (rep) => {
  const text = bodyFor(rep);
  return () => readJsonBody(request(text));
});
await stage('body parse, temperature 0.7 (Python form)', (rep) => {
  const text = bodyFor(rep).replace(/}$/, ',"temperature":0.7}');
  return () => readJsonBody(request(text));
});
let ids: number[] = [];
await stage('render + prompt thread + ids back', (rep) => {
  const messages = JSON.parse(bodyFor(rep)).messages;
  return async () => {
    ids = await encodeChatPrompt({ tokenizer: ctx.tokenizer, pool: ctx.prompts ?? null }, template, { messages, addGenerationPrompt: true, kwargs });
  };
});
console.log(`  (${ids.length} prompt tokens)`);
// The stages back to back as a request runs them: what one stage's last piece runs on into.
const addOf = (promptTokenIds: number[]) => encodeAdd({ requestId: 'r', promptTokenIds, sampling: w.sampling('short', 1 << 20), arrivalTime: 1, cacheSalt: null, dataParallelRank: null, priority: 0 } as never);
await stage('body → render → thread → ids → ADD', (rep) => {
  const text = bodyFor(rep).replace(/}$/, ',"temperature":0.7}');
  return async () => {
    const body = (await readJsonBody(request(text))) as { messages: unknown[] };
    const got = await encodeChatPrompt({ tokenizer: ctx.tokenizer, pool: ctx.prompts ?? null }, template, { messages: body.messages as never, addGenerationPrompt: true, kwargs });
    addOf(got);
  };
});
const sampling = w.sampling('short', 1 << 20);
await stage('ADD encode (vLLM)', () => () => encodeAdd({ requestId: 'r', promptTokenIds: ids, sampling, arrivalTime: 1, cacheSalt: null, dataParallelRank: null, priority: 0 } as never));
const policy = new CacheAwarePolicy({ modelId: 'm', logger: console as never, random: Math.random } as never);
const workers = [0, 1].map((i) => ({ id: `w${i}`, url: `u${i}`, loadScore: () => 0 }));
await stage('cache_aware routing, 2 workers (+ insert)', (rep) => {
  const mine = ids.slice();
  mine[0] = rep;
  return async () => {
    policy.select(workers, mine);
    // A sliced insert finishes in later turns; wait for them so they are counted.
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  };
});
await ctx.prompts?.close();
