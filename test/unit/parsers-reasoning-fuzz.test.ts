/**
 * Random texts built from marker pieces, for every parser and every arming: the streamed fold
 * equals the non-stream fold for many random splits, and for the think-block families the
 * non-stream result equals a separately written reference of the documented rules.
 */
import { describe, expect, it } from 'vitest';
import { REASONING_PARSERS } from '../../src/pipeline/parsers/reasoning/registry.js';
import type { ReasoningOptions } from '../../src/pipeline/parsers/reasoning/types.js';
import { randomSplits, rng } from '../support/splits.js';
import { ALL_OPTIONS, firstSplitMismatch, parsed, type Separated } from '../fixtures/reasoning/harness.js';

const THINK_FAMILIES: Record<string, [start: string, end: string]> = {
  base: ['<think>', '</think>'],
  deepseek_r1: ['<think>', '</think>'],
  deepseek_v31: ['<think>', '</think>'],
  deepseek_v4: ['<think>', '</think>'],
  qwen3: ['<think>', '</think>'],
  qwen3_thinking: ['<think>', '</think>'],
  glm45: ['<think>', '</think>'],
  kimi_thinking: ['<think>', '</think>'],
  kimi_k25: ['<think>', '</think>'],
  kimi: ['◁think▷', '◁/think▷'],
  step3: ['<think>', '</think>'],
  minimax: ['<think>', '</think>'],
  cohere_cmd: ['<|START_THINKING|>', '<|END_THINKING|>'],
  nano_v3: ['<think>', '</think>'],
};

const K3_MARKERS = ['think', 'response', 'message', 'tools', 'call'].flatMap((c) => [`<|open|>${c}<|sep|>`, `<|close|>${c}<|sep|>`]);
const INKLING_MARKERS = [
  '<|message_model|>',
  '<|content_text|>',
  '<|content_thinking|>',
  '<|content_invoke_tool_json|>',
  '<|content_invoke_tool_text|>',
  '<|end_message|>',
  '<|content_model_end_sampling|>',
  '<|message_user|>',
];

function markersOf(name: string): string[] {
  if (name === 'kimi_k3') return K3_MARKERS;
  if (name === 'inkling') return INKLING_MARKERS;
  const pair = THINK_FAMILIES[name];
  return pair === undefined ? ['<think>', '</think>'] : pair;
}

/** Random text: whole markers, marker prefixes and suffixes, and ordinary characters. */
function randomText(next: () => number, markers: readonly string[], pieces: number): string {
  const plain = ['a', 'b', ' ', '\n', 'é', '🙂', '<', '|', '>', '/', '◁', '▷', 'think'];
  let s = '';
  for (let i = 0; i < pieces; i++) {
    const r = next();
    const m = markers[Math.floor(next() * markers.length)];
    if (r < 0.3) s += m;
    else if (r < 0.45) s += m.slice(0, 1 + Math.floor(next() * (m.length - 1)));
    else if (r < 0.55) s += m.slice(1 + Math.floor(next() * (m.length - 1)));
    else s += plain[Math.floor(next() * plain.length)];
  }
  return s;
}

/** The think-block rules written plainly over the whole text (see think-block.ts). */
function reference(text: string, [start, end]: [string, string], opts: ReasoningOptions): Separated {
  let pos = 0;
  let inReasoning = opts.startInReasoning;
  let startOpen = !opts.startMarkerConsumed;
  let content = '';
  if (opts.startMarkerConsumed && text.startsWith(start)) {
    pos = start.length;
    inReasoning = true;
  }
  if (!inReasoning) {
    const i = startOpen ? text.indexOf(start) : -1;
    if (i === -1) return { text, reasoning: '' };
    content = text.slice(0, i);
    pos = i + start.length;
    startOpen = false;
  }
  const e = text.indexOf(end, pos);
  let body = e === -1 ? text.slice(pos) : text.slice(pos, e);
  if (startOpen) {
    const s = body.indexOf(start);
    if (s !== -1) body = body.slice(0, s) + body.slice(s + start.length);
  }
  if (e !== -1) content += text.slice(e + end.length);
  return { text: content, reasoning: body };
}

describe('reasoning parsers under random text and random splits', () => {
  for (const [name, spec] of REASONING_PARSERS) {
    it(`${name}: streamed equals non-streamed`, () => {
      const next = rng(name.length * 7919 + 17);
      const markers = markersOf(name);
      for (let t = 0; t < 60; t++) {
        const text = randomText(next, markers, 4 + Math.floor(next() * 16));
        for (const opts of ALL_OPTIONS) {
          expect(firstSplitMismatch(spec, text, opts, randomSplits(text, 25, t + 1, 6))).toBeNull();
        }
      }
    });
  }

  for (const [name, pair] of Object.entries(THINK_FAMILIES)) {
    it(`${name}: non-stream result follows the documented rules`, () => {
      const spec = REASONING_PARSERS.get(name);
      if (spec === undefined) throw new Error(`no parser ${name}`);
      const next = rng(name.length * 104729 + 3);
      for (let t = 0; t < 300; t++) {
        const text = randomText(next, pair, 2 + Math.floor(next() * 12));
        for (const opts of ALL_OPTIONS) {
          expect([text, opts, parsed(spec, text, opts)]).toEqual([text, opts, reference(text, pair, opts)]);
        }
      }
    });
  }
});
