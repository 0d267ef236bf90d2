/**
 * The think-block parser (every `<think>`-style family): semantics, malformed output, arming,
 * and "streamed equals non-streamed" over all splits of short texts.
 */
import { describe, expect, it } from 'vitest';
import { REASONING_PARSERS } from '../../src/pipeline/parsers/reasoning/registry.js';
import type { ReasoningOptions, ReasoningParserSpec } from '../../src/pipeline/parsers/reasoning/types.js';
import { PARSER_BUFFER_LIMIT } from '../../src/pipeline/parsers/types.js';
import { allSplits } from '../support/splits.js';
import { ALL_OPTIONS, ARMED, firstSplitMismatch, OFF, parsed, PREFILLED, streamItems, streamed, twoCutSplits } from '../fixtures/reasoning/harness.js';

function spec(name: string): ReasoningParserSpec {
  const s = REASONING_PARSERS.get(name);
  if (s === undefined) throw new Error(`no parser ${name}`);
  return s;
}
const qwen3 = spec('qwen3');
const kimi = spec('kimi');
const cohere = spec('cohere_cmd');

describe('think-block separation', () => {
  it('splits at the first end marker and keeps whitespace on both sides', () => {
    expect(parsed(qwen3, '<think>\n a \n</think>\n\n b ', OFF)).toEqual({ reasoning: '\n a \n', text: '\n\n b ' });
  });

  it('without a start marker and not armed, everything is content (the end marker included)', () => {
    expect(parsed(qwen3, 'plain </think> text', OFF)).toEqual({ reasoning: '', text: 'plain </think> text' });
  });

  it('an end marker that never comes leaves everything in reasoning', () => {
    expect(parsed(qwen3, '<think>still thinking', OFF)).toEqual({ reasoning: 'still thinking', text: '' });
    expect(parsed(spec('deepseek_r1'), 'still thinking', ARMED)).toEqual({ reasoning: 'still thinking', text: '' });
  });

  it('text before the start marker is content (SMG would fold it into reasoning)', () => {
    expect(parsed(qwen3, 'Sure. <think>why</think>Done', OFF)).toEqual({ reasoning: 'why', text: 'Sure. Done' });
  });

  it('only the first start marker is consumed; later markers are literal text', () => {
    expect(parsed(qwen3, '<think>a<think>b</think>c<think>d</think>', OFF)).toEqual({
      reasoning: 'a<think>b',
      text: 'c<think>d</think>',
    });
  });

  it('an empty think block gives empty reasoning and the rest as content', () => {
    expect(parsed(qwen3, '<think></think>\n\nHi', OFF)).toEqual({ reasoning: '', text: '\n\nHi' });
  });

  it('keeps unicode and emoji around markers intact', () => {
    expect(parsed(kimi, '前◁think▷🤔思考◁/think▷✅答', OFF)).toEqual({ reasoning: '🤔思考', text: '前✅答' });
    expect(parsed(qwen3, '👩‍💻<think>🧠</think>🎉', OFF)).toEqual({ reasoning: '🧠', text: '👩‍💻🎉' });
  });

  it('the empty text gives nothing', () => {
    expect(qwen3.parse('', OFF)).toEqual([]);
    expect(streamItems(qwen3, [], ARMED).flat()).toEqual([]);
  });
});

describe('arming', () => {
  it('startInReasoning: output is reasoning until the end marker', () => {
    expect(parsed(qwen3, 'Let me think</think>Answer', ARMED)).toEqual({ reasoning: 'Let me think', text: 'Answer' });
  });

  it('startInReasoning: a start marker the model writes anyway is dropped once', () => {
    expect(parsed(qwen3, '<think>\nabc</think>x', ARMED)).toEqual({ reasoning: '\nabc', text: 'x' });
    expect(parsed(qwen3, 'pre<think>abc</think>x', ARMED)).toEqual({ reasoning: 'preabc', text: 'x' });
    expect(parsed(qwen3, '<think>a<think>b</think>', ARMED)).toEqual({ reasoning: 'a<think>b', text: '' });
  });

  it('startMarkerConsumed: a later start marker is literal reasoning text', () => {
    expect(parsed(qwen3, 'tags like <think> matter</think>ok', PREFILLED)).toEqual({
      reasoning: 'tags like <think> matter',
      text: 'ok',
    });
  });

  it('startMarkerConsumed: a start marker opening the output is still consumed', () => {
    expect(parsed(qwen3, '<think>\nr</think>t', PREFILLED)).toEqual({ reasoning: '\nr', text: 't' });
    const unarmed = { startInReasoning: false, startMarkerConsumed: true };
    expect(parsed(qwen3, '<think>r</think>t', unarmed)).toEqual({ reasoning: 'r', text: 't' });
    expect(parsed(qwen3, 'a<think>r</think>t', unarmed)).toEqual({ reasoning: '', text: 'a<think>r</think>t' });
  });

  it('the options decide, not the parser default: deepseek_r1 unarmed waits for <think>', () => {
    expect(parsed(spec('deepseek_r1'), 'no tags</think>x', OFF)).toEqual({ reasoning: '', text: 'no tags</think>x' });
  });

  it('each family has the start state of the §11.2 table', () => {
    const inReasoning = ['deepseek_r1', 'qwen3_thinking', 'kimi_thinking', 'step3', 'minimax'];
    for (const [name, s] of REASONING_PARSERS) expect([name, s.startsInReasoning]).toEqual([name, inReasoning.includes(name)]);
  });
});

describe('streaming', () => {
  it('holds only a possible marker suffix: an end marker split after text in the same delta is found', () => {
    const pushes = streamItems(qwen3, ['reasoning</th', 'ink>answer'], ARMED);
    expect(pushes).toEqual([[{ kind: 'reasoning', text: 'reasoning' }], [{ kind: 'text', text: 'answer' }], []]);
  });

  it('a start marker split across deltas after content', () => {
    const pushes = streamItems(qwen3, ['Hi <th', 'ink>r', '</think>', 't'], OFF);
    expect(pushes).toEqual([
      [{ kind: 'text', text: 'Hi ' }],
      [{ kind: 'reasoning', text: 'r' }],
      [],
      [{ kind: 'text', text: 't' }],
      [],
    ]);
  });

  it('a text that only looks like a marker prefix is released as soon as it stops matching', () => {
    expect(streamItems(qwen3, ['a <', 'b'], ARMED)).toEqual([[{ kind: 'reasoning', text: 'a ' }], [{ kind: 'reasoning', text: '<b' }], []]);
  });

  it('a partial marker still held at end of stream is flushed into the current field', () => {
    expect(streamItems(qwen3, ['abc</thi'], ARMED)).toEqual([[{ kind: 'reasoning', text: 'abc' }], [{ kind: 'reasoning', text: '</thi' }]]);
    expect(streamItems(qwen3, ['abc<thi'], OFF)).toEqual([[{ kind: 'text', text: 'abc' }], [{ kind: 'text', text: '<thi' }]]);
    expect(streamItems(qwen3, ['<thi'], PREFILLED)).toEqual([[], [{ kind: 'reasoning', text: '<thi' }]]);
    expect(parsed(qwen3, 'abc</thi', ARMED)).toEqual({ reasoning: 'abc</thi', text: '' });
  });

  it('a marker split at every position is found', () => {
    const text = 'ab<think>cd</think>ef';
    for (let i = 1; i < text.length; i++) {
      for (let j = i + 1; j < text.length; j++) {
        const parts = [text.slice(0, i), text.slice(i, j), text.slice(j)];
        expect(streamed(qwen3, parts, OFF)).toEqual({ reasoning: 'cd', text: 'abef' });
      }
    }
  });

  it('a marker arriving one character per delta', () => {
    expect(streamed(cohere, Array.from('x<|START_THINKING|>y<|END_THINKING|>z'), OFF)).toEqual({ reasoning: 'y', text: 'xz' });
  });

  it('a push with no marker in sight returns one item with exactly that delta', () => {
    const p = qwen3.create(ARMED);
    for (const d of ['The', ' quick', ' brown', ' fox', '\n\n']) expect(p.push(d)).toEqual([{ kind: 'reasoning', text: d }]);
    expect(p.push('')).toEqual([]);
  });
});

describe('streamed equals non-streamed for every split', () => {
  // allSplits is 2^(n-1) splits: these stay at 15 code points, one canonical text at 17.
  const SHORT: Array<[ReasoningParserSpec, string, readonly ReasoningOptions[]]> = [
    [qwen3, '<think>a</think>b', [OFF, ARMED]],
    [qwen3, '<think></think>', ALL_OPTIONS],
    [qwen3, 'a</think><thin', ALL_OPTIONS],
    [qwen3, '<th<think>k</th', ALL_OPTIONS],
    [qwen3, '<<think>></thin', ALL_OPTIONS],
    [qwen3, '🙂<think>🧠</thi', ALL_OPTIONS],
    [kimi, '◁think▷◁/think▷', ALL_OPTIONS],
    [kimi, 'r◁/think▷t', ALL_OPTIONS],
    [kimi, '◁◁think▷◁/◁/thi', ALL_OPTIONS],
  ];
  for (const [s, text, options] of SHORT) {
    for (const opts of options) {
      it(`${s.name} ${JSON.stringify(text)} ${JSON.stringify(opts)}: all splits`, () => {
        expect(firstSplitMismatch(s, text, opts, allSplits(text))).toBeNull();
      });
    }
  }

  const LONGER: Array<[ReasoningParserSpec, string]> = [
    [qwen3, '<think><think></think>\n\nab</think>c</th'],
    [qwen3, 'x <think>\nreasoning é 🧠\n</think>\n\nanswer <think> tail'],
    [cohere, '<|START_THINKING|>r<|END_THINKING|>t'],
    [cohere, 'a<|START_<|START_THINKING|>b<|END_THINKING|<|END_THINKING|>c<|'],
  ];
  for (const [s, text] of LONGER) {
    for (const opts of ALL_OPTIONS) {
      it(`${s.name} ${JSON.stringify(text)} ${JSON.stringify(opts)}: every 1- and 2-cut split`, () => {
        expect(firstSplitMismatch(s, text, opts, twoCutSplits(text))).toBeNull();
      });
    }
  }
});

describe('buffer limit', () => {
  const MiB = 1024 * 1024;
  const body = 'x'.repeat(5 * MiB);

  it('never holds more than a marker: a 5 MiB stream is released delta by delta', () => {
    const p = qwen3.create(ARMED);
    for (let i = 0; i < body.length; i += MiB) {
      const d = body.slice(i, i + MiB) + (i + MiB >= body.length ? '</th' : '');
      expect(p.push(d)).toEqual([{ kind: 'reasoning', text: body.slice(i, i + MiB) }]);
    }
    expect(p.push('ink>answer')).toEqual([{ kind: 'text', text: 'answer' }]);
    expect(p.finish()).toEqual([]);
  });

  it('a non-stream text above PARSER_BUFFER_LIMIT is still separated, nothing lost', () => {
    expect(body.length).toBeGreaterThan(PARSER_BUFFER_LIMIT);
    const out = parsed(qwen3, `<think>${body}</think>${body}`, OFF);
    expect(out.reasoning.length).toBe(body.length);
    expect(out.text.length).toBe(body.length);
  });
});
