/**
 * Times each piece of per-request work that grows with the prompt, on a ~131k-token chat body, in
 * this process (no HTTP): the longest single synchronous piece is what holds the gateway's loop.
 *   npx tsx scripts/long-prompt-pieces.ts [--tokens 131072] [--messages 1]
 */
import { parseArgs } from 'node:util';
import { parseBenchArgs } from './bench/args.js';
import { buildWorkloads } from './bench/workloads.js';
import { bodyBytes } from './bench/http-client.js';
import { jsonDepthProblem } from '../src/util/json-depth.js';
import { parseJsonText } from '../src/pipeline/chat-prompt/template-compiler/python-json.js';
import { loadModelContext } from '../src/pipeline/model-context.js';
import { refuseSurelyTooLong } from '../src/pipeline/prompt-length-bound.js';
import { encodeAdd } from '../src/engine/dialects/vllm/request.js';
import { buildTemplateKwargs } from '../src/pipeline/chat-prompt/chat-template-thinking.js';
import { parseChatRequest } from '../src/api/openai/chat-request.js';

const { values } = parseArgs({ options: { tokens: { type: 'string', default: '131072' }, messages: { type: 'string', default: '1' } } });
const opts = parseBenchArgs(['--long-prompt-tokens', values.tokens!])!;
const w = await buildWorkloads(opts);
const body0 = bodyBytes(w.httpBody('long', 'm'));
const obj0 = JSON.parse(body0.toString()) as { messages: Array<{ role: string; content: string }> };
const n = Number(values.messages);
if (n > 1) {
  const text = obj0.messages[0].content;
  const per = Math.ceil(text.length / n);
  obj0.messages = Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: text.slice(i * per, (i + 1) * per) }));
  obj0.messages[n - 1].role = 'user';
}
const body = Buffer.from(JSON.stringify(obj0));
const ctx = await loadModelContext({ modelId: opts.model, source: opts.model, chatTemplate: null });
const template = ctx.template!;

function time<T>(name: string, f: () => T, reps = 7): T {
  let v!: T;
  const ts: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    v = f();
    ts.push(performance.now() - t0);
  }
  ts.sort((a, b) => a - b);
  console.log(`${name.padEnd(34)} min ${ts[0].toFixed(2)} ms  median ${ts[reps >> 1].toFixed(2)} ms`);
  return v;
}
console.log(`body ${body.length} bytes, ${n} message(s)`);
const chunks: Buffer[] = [];
for (let i = 0; i < body.length; i += 65536) chunks.push(body.subarray(i, i + 65536));
time('Buffer.concat 64k chunks', () => Buffer.concat(chunks));
const text = time('utf8 decode', () => new TextDecoder().decode(body));
time('jsonDepthProblem', () => jsonDepthProblem(text));
time('JSON.parse', () => JSON.parse(text));
const parsed = time('parseJsonText', () => parseJsonText(text)) as Record<string, unknown>;
time('parseChatRequest', () => parseChatRequest(parsed));
const kwargs = buildTemplateKwargs({ chatTemplateKwargs: {}, toolChoice: undefined, reasoningEffort: undefined, responseFormat: undefined }, template.thinking);
const rendered = time('template.render', () => template.render({ messages: obj0.messages as never, addGenerationPrompt: true, kwargs }));
time('refuseSurelyTooLong', () => refuseSurelyTooLong(ctx.tokenizer, rendered, 262144));
time('Buffer.byteLength', () => Buffer.byteLength(rendered));
const ids = ctx.tokenizer.encode(rendered, false);
console.log(`${ids.length} tokens`);
const u32 = Uint32Array.from(ids);
time('Uint32Array -> number[]', () => { const o = new Array<number>(u32.length); for (let i = 0; i < u32.length; i++) o[i] = u32[i]; return o; });
time('structuredClone(text)', () => structuredClone(rendered));
const sampling = w.sampling('short', 262144);
time('encodeAdd', () => encodeAdd({ requestId: 'x', promptTokenIds: ids, sampling, arrivalTime: 1, cacheSalt: null, dataParallelRank: null, priority: 0 } as never));
const { checkTokenIds } = await import('../src/engine/dialects/guard-checks.js');
const { MsgpackWriter } = await import('../src/engine/msgpack/writer.js');
time('checkTokenIds', () => checkTokenIds(ids, 'x', true));
const mw = new MsgpackWriter(4096);
time('uintArray (fresh 4k writer)', () => new MsgpackWriter(4096).uintArray(ids).toBuffer());
time('uintArray (reused writer)', () => mw.reset().uintArray(ids).toBuffer());
// The mock engine's side of one long ADD (its event loop steps every stream): decode the frames.
const { makeVllmCodec } = await import('../src/mock-engine/codec.js');
const codec = makeVllmCodec(false);
const frames = encodeAdd({ requestId: 'y', promptTokenIds: ids, sampling, arrivalTime: 1, cacheSalt: null, dataParallelRank: null, priority: 0 } as never);
time('mock engine: decode ADD', () => codec.decodeInput(frames as Buffer[]));
