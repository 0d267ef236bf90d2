/**
 * The gateway's per-token work at N paced streams, in process and without sockets: one vLLM
 * output message per step carrying one token for each of N chat streams, decoded (decodeOutput,
 * the IdTable), dispatched to each stream's generation (startChoices: detokenizer, stop decoder,
 * choice output, the router's and vLLM's request metrics), encoded as chat SSE frames into each
 * stream's pending bytes (RawSseWriter, FrameBytes) and flushed by the flush scheduler to a
 * response that takes every write at once. CPU µs per token over the steps, min of --reps; no
 * kernel, no HTTP: what scripts/paced-streams-bench.ts cannot separate from a busy box's noise.
 *
 * --thrash MB touches that much memory before each measured step (not counted). In the gateway a
 * stream's objects are touched once per engine step, after the kernel's TCP work and 999 other
 * streams' have pushed them out of the caches; steps run back to back here keep them hot, which
 * hid that cost (issue 30: 0.63 µs/token hot, 1.4-2.1 with 64 MB touched between steps).
 *
 *   npx tsx scripts/paced-pipeline-bench.ts [--n 1000] [--steps 300] [--reps 5] [--thrash MB]
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { chatSse } from '../src/api/openai/chat-respond.js';
import { RawSseWriter } from '../src/api/raw-sse.js';
import type { RawResponse } from '../src/api/types.js';
import type { EngineClientApi, RequestStream } from '../src/engine/client-types.js';
import { decodeOutput } from '../src/engine/dialects/vllm/output.js';
import { IdTable } from '../src/engine/id-table.js';
import { EngineRequestStream } from '../src/engine/request-stream.js';
import type { EngineRequest, OutputEvent } from '../src/engine/types.js';
import { encodeOutputs } from '../src/mock-engine/wire/vllm/output-encode.js';
import { GatewayMetrics } from '../src/gateway/metrics.js';
import { startChoices } from '../src/pipeline/generate.js';
import { requestMetrics } from '../src/pipeline/metrics.js';
import { loadModelContext } from '../src/pipeline/model-context.js';
import { DEFAULT_MODEL } from './bench/args.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '1000' }, steps: { type: 'string', default: '300' }, reps: { type: 'string', default: '5' }, thrash: { type: 'string', default: '0' } } });
/** MB of memory touched (not counted) before each measured step: the caches a real step finds, after the kernel and 999 other streams ran. */
const thrash = new Uint8Array(Number(values.thrash) << 20);
function evict(): void {
  for (let i = 0; i < thrash.length; i += 64) thrash[i]++;
}
const N = Number(values.n);
const STEPS = Number(values.steps);

const ctx = await loadModelContext({ modelId: 'bench', source: DEFAULT_MODEL, chatTemplate: null });
const prompt = ctx.tokenizer.encode('Tell me about the lighthouse keeper and the bottle he found.', false);
// Ordinary prose tokens, cycled.
const words = ctx.tokenizer.encode(' the lighthouse keeper walked along the rocky shore at dawn collecting driftwood and glass while gulls circled', false);

/** A response that takes every write at once (no socket). */
class SinkResponse implements RawResponse {
  headersSent = false;
  closed = false;
  idle = true;
  bytes = 0;
  sent = new Response(null);
  writeHead(): void {
    this.headersSent = true;
  }
  chunkSelf(): boolean {
    return true;
  }
  flushHead(): void {}
  write(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    return true;
  }
  end(chunk?: Buffer | string): void {
    if (chunk) this.bytes += chunk.length;
    this.closed = true;
  }
  onDrain(): void {}
  destroy(): void {
    this.closed = true;
  }
}

const streams = new Map<string, EngineRequestStream>();
const ids = new IdTable();
const client: EngineClientApi = {
  url: 'ipc:///bench',
  runtime: 'vllm',
  registrations: [],
  alive: true,
  maxModelLen: 1 << 20,
  submit(req: EngineRequest): RequestStream {
    const s = new EngineRequestStream(req.requestId, 0, () => {});
    streams.set(req.requestId, s);
    ids.add(req.requestId);
    return s;
  },
  abort(): void {},
  ranks: () => [],
  onDead(): void {},
  close: async () => {},
};
/** The gateway's request metrics (router and vLLM series), as every served request records them. */
const metrics = new GatewayMetrics(() => []);
const signal = { aborted: false, addEventListener() {}, removeEventListener() {} };

function startStreams(round: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < N; i++) {
    const id = `chatcmpl-${round}-${i.toString(16).padStart(8, '0')}-${Math.random().toString(16).slice(2, 10)}`;
    out.push(id);
    const raw = new SinkResponse();
    const enc = chatSse({ id, created: 1700000000, model: 'Qwen/Qwen3-0.6B', n: 1, tokenizer: ctx.tokenizer, topLogprobs: null, includeUsage: true });
    const writer = new RawSseWriter(raw, enc, { headers: {}, lazyHead: false, errorResponse: () => new Response(null), onClose: () => {} });
    startChoices(
      {
        client,
        tokenizer: ctx.tokenizer,
        choices: [{ index: 0, wireId: id, promptTokenIds: prompt, sampling: {} as never }],
        rules: { stopStrings: [], tokenStopStrings: new Map(), stopTokenIds: [151645], keepStop: false, skipSpecialTokens: true },
        signal,
        timeoutMs: 300_000,
        stream: true,
        observer: requestMetrics(metrics.router, { backend_type: 'vllm', model: 'bench', endpoint: 'chat_completions' }, true, { n: 1, maxTokens: STEPS, maxModelLen: 40960 }),
      },
      writer,
    );
    writer.begin();
  }
  return out;
}

/** One engine step's message (made by the mock engine's encoder, not counted). */
function message(reqIds: string[], k: number, last: boolean): Buffer[] {
  return encodeOutputs({
    engineIndex: 0,
    timestamp: k,
    outputs: reqIds.map((requestId, i) => ({ requestId, newTokenIds: [words[(k + i) % words.length]], finishReason: last ? 1 : null })),
    schedulerStats: { numRunningReqs: reqIds.length, numWaitingReqs: 0, kvCacheUsage: 0.1 },
  });
}

/** What the engine client does with one message: decode, dispatch each output to its stream. */
function step(frames: Buffer[]): void {
  const ev = decodeOutput(frames, ids) as Extract<OutputEvent, { kind: 'batch' }>;
  for (const o of ev.outputs) {
    const s = streams.get(o.requestId);
    if (!s) continue;
    s.push(o);
    if (o.finish !== null) {
      streams.delete(o.requestId);
      ids.delete(o.requestId);
      s.finish();
    }
  }
}

let best = Infinity;
for (let rep = 0; rep < Number(values.reps); rep++) {
  const reqIds = startStreams(rep);
  // The first steps (role chunks, JIT) are not counted.
  for (let k = 0; k < 20; k++) {
    step(message(reqIds, k, false));
    await nextTurn();
  }
  let cpu = 0;
  for (let k = 20; k < STEPS; k++) {
    const frames = message(reqIds, k, k === STEPS - 1);
    evict();
    const c0 = process.cpuUsage();
    step(frames);
    await nextTurn();
    const c = process.cpuUsage(c0);
    cpu += c.user + c.system;
  }
  const us = cpu / ((STEPS - 20) * N);
  best = Math.min(best, us);
  process.stderr.write(`rep ${rep + 1}: ${us.toFixed(2)} µs/token\n`);
}
console.log(`pipeline (in process, ${N} streams): ${best.toFixed(2)} µs/token (best of ${values.reps})`);
