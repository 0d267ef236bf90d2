/**
 * A long prompt's loop work (body parse, render, prompt thread, ids, ADD encode) beside a stand-in
 * for paced streams, in one process, measured as the bench measures the gateway's longest turn
 * (scripts/bench/loop-probe.mjs: main-thread CPU between two runs of a 1 ms timer, schedstat
 * brought up to date first). The stand-in is deterministic where the bench's 192 streams are not:
 * every --step-ms a byte arrives on a loopback socket (poll phase) and its handler holds the loop
 * --step-work-ms (an engine step's message for every stream), then queues a --flush-work-ms
 * immediate (their flush).
 *
 *   npx tsx scripts/long-prompt-steps.ts [--tree DIR] [--secs 4] [--concurrency 2]
 *
 * Prints the turn histogram and the longest turn with the steps alone and with the prompts.
 */
import { openSync, readSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBenchArgs } from './bench/args.js';
import { buildWorkloads } from './bench/workloads.js';
import { bodyBytes } from './bench/http-client.js';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
    secs: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '2' },
    'step-ms': { type: 'string', default: '10' },
    'step-work-ms': { type: 'string', default: '1.2' },
    'flush-work-ms': { type: 'string', default: '0.5' },
  },
});
const tree = resolve(values.tree!);
const mod = async <T>(p: string) => (await import(pathToFileURL(join(tree, p)).href)) as T;
const { readJsonBody } = await mod<typeof import('../src/api/json-body.js')>('src/api/json-body.ts');
const { loadModelContext } = await mod<typeof import('../src/pipeline/model-context.js')>('src/pipeline/model-context.ts');
const { encodeAdd } = await mod<typeof import('../src/engine/dialects/vllm/request.js')>('src/engine/dialects/vllm/request.ts');
const { encodeChatPrompt } = await mod<typeof import('../src/pipeline/prompt-pool/encode-prompt.js')>('src/pipeline/prompt-pool/encode-prompt.ts');
const { buildTemplateKwargs } = await mod<typeof import('../src/pipeline/chat-prompt/chat-template-thinking.js')>('src/pipeline/chat-prompt/chat-template-thinking.ts');

const opts = parseBenchArgs(['--long-prompt-tokens', '131072'])!;
const w = await buildWorkloads(opts);
const body0 = bodyBytes(w.httpBody('long', 'm')).toString();
const ctx = await loadModelContext({ modelId: opts.model, source: opts.model, chatTemplate: null });
await ctx.prompts!.whenReady();
const template = ctx.template!;
const kwargs = buildTemplateKwargs({ chatTemplateKwargs: {}, toolChoice: undefined, reasoningEffort: undefined, responseFormat: undefined }, template.thinking);
const sampling = w.sampling('short', 1 << 20);

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* held */
  }
};

// The stand-in streams: a byte per step over loopback.
const server = createServer((s) => {
  const timer = setInterval(() => s.write('x'), Number(values['step-ms']));
  s.on('close', () => clearInterval(timer));
  s.on('error', () => clearInterval(timer));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
client.on('data', () => {
  spin(Number(values['step-work-ms']));
  setImmediate(() => spin(Number(values['flush-work-ms'])));
});

// The bench's turn measure.
const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
const buf = Buffer.alloc(96);
const cpuMs = () => {
  process.cpuUsage();
  const n = readSync(fd, buf, 0, buf.length, 0);
  const text = buf.toString('latin1', 0, n);
  return Number(text.slice(0, text.indexOf(' '))) / 1e6;
};
let hist = new Map<number, number>();
let max = 0;
let prev = cpuMs();
// LP_TRACE=FILE: the turns over 3 ms with their bounds (µs, the CPU profile's clock), in
// turn-tracer.mjs's format for scripts/turn-trace-report.mjs (run with --cpu-prof).
const traced: Array<{ fromUs: number; toUs: number; cpuMs: number; waitMs: number }> = [];
const us = () => Number(process.hrtime.bigint() / 1000n);
let prevUs = us();
setInterval(() => {
  const now = cpuMs();
  const d = now - prev;
  prev = now;
  const t = us();
  if (d > 3) traced.push({ fromUs: prevUs, toUs: t, cpuMs: d, waitMs: 0 });
  prevUs = t;
  const b = Math.floor(d * 2) / 2;
  hist.set(b, (hist.get(b) ?? 0) + 1);
  if (d > max) max = d;
}, 1).unref();
const window = async (run: () => Promise<void>) => {
  hist = new Map();
  max = 0;
  await run();
  const h = [...hist].sort((a, b) => a[0] - b[0]).filter(([b]) => b >= 1.5);
  return `longest ${max.toFixed(2)} ms; turns >= 1.5 ms by 0.5 ms bucket: ${h.map(([b, c]) => `${b}:${c}`).join(' ')}`;
};

const secs = Number(values.secs);
// Warm-up: the JIT and the prompt thread.
let seq = 0;
const one = async () => {
  const text = body0.replace('"content":"', `"content":"Request ${seq++}. `);
  const req = new Request('http://gw/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  const body = (await readJsonBody(req)) as { messages: never };
  const ids = await encodeChatPrompt({ tokenizer: ctx.tokenizer, pool: ctx.prompts ?? null }, template, { messages: body.messages, addGenerationPrompt: true, kwargs });
  encodeAdd({ requestId: `r${seq}`, promptTokenIds: ids, sampling, arrivalTime: 1, cacheSalt: null, dataParallelRank: null, priority: 0 } as never);
};
for (let i = 0; i < 4; i++) await one();
let done = 0;
const alone = await window(() => new Promise((r) => setTimeout(r, secs * 1000)));
const withPrompts = await window(async () => {
  const until = performance.now() + secs * 1000;
  await Promise.all(
    Array.from({ length: Number(values.concurrency) }, async () => {
      while (performance.now() < until) {
        await one();
        done++;
      }
    }),
  );
});
console.log(`tree ${tree}; steps every ${values['step-ms']} ms holding ${values['step-work-ms']} + ${values['flush-work-ms']} ms`);
console.log(`steps alone:            ${alone}`);
console.log(`with ${done} long prompts: ${withPrompts}`);
if (process.env.LP_TRACE) writeFileSync(process.env.LP_TRACE, JSON.stringify({ hists: [], marks: [], turns: traced, gcs: [] }));
client.destroy();
server.close();
await ctx.prompts?.close();
