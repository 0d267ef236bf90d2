/** Inkling's TML typed blocks (families/inkling.ts). */
import { describe, expect, it } from 'vitest';
import { REASONING_PARSERS } from '../../src/pipeline/parsers/reasoning/registry.js';
import type { ReasoningParserSpec } from '../../src/pipeline/parsers/reasoning/types.js';
import { PARSER_BUFFER_LIMIT } from '../../src/pipeline/parsers/types.js';
import { ALL_OPTIONS, ARMED, firstSplitMismatch, OFF, parsed, streamed, streamItems, twoCutSplits } from '../fixtures/reasoning/harness.js';

const inkling = REASONING_PARSERS.get('inkling') as ReasoningParserSpec;
const MM = '<|message_model|>';
const THINK = '<|content_thinking|>';
const TEXT = '<|content_text|>';
const JSON_TOOL = '<|content_invoke_tool_json|>';
const TEXT_TOOL = '<|content_invoke_tool_text|>';
const END = '<|end_message|>';
const SAMPLING_END = '<|content_model_end_sampling|>';

describe('inkling', () => {
  it('needs special tokens kept in the decode', () => {
    expect(inkling.needsSpecialTokens).toBe(true);
  });

  it('thinking block → reasoning, text block → content, control tokens removed', () => {
    expect(parsed(inkling, `${THINK}why${END}${MM}${TEXT}answer${END}${SAMPLING_END}`, OFF)).toEqual({ reasoning: 'why', text: 'answer' });
  });

  it('a thinking block ends at the next control token, not only at end_message', () => {
    expect(parsed(inkling, `${THINK}why${TEXT}answer`, OFF)).toEqual({ reasoning: 'why', text: 'answer' });
  });

  it('startInReasoning opens a thinking block', () => {
    expect(parsed(inkling, `why${END}${MM}${TEXT}answer`, ARMED)).toEqual({ reasoning: 'why', text: 'answer' });
  });

  it('keeps a JSON tool block verbatim and drops the header name before it', () => {
    const call = `${JSON_TOOL}{"name":"search","args":{}}${END}`;
    expect(parsed(inkling, `${MM}search${call}${SAMPLING_END}`, OFF)).toEqual({ reasoning: '', text: call });
  });

  it('suppresses a text-mode tool block whole', () => {
    expect(parsed(inkling, `${TEXT_TOOL}search for rust${END}${SAMPLING_END}`, OFF)).toEqual({ reasoning: '', text: '' });
  });

  it('header text not followed by a content type is released as content, not lost', () => {
    expect(parsed(inkling, `${MM}stray${END}`, OFF)).toEqual({ reasoning: '', text: 'stray' });
    expect(parsed(inkling, `${MM}cut off`, OFF)).toEqual({ reasoning: '', text: 'cut off' });
  });

  it('an unknown <|...|> token is ordinary text', () => {
    expect(parsed(inkling, `${TEXT}a<|other|>b`, OFF)).toEqual({ reasoning: '', text: 'a<|other|>b' });
  });

  it('holds a split control token and flushes a partial one at end of stream', () => {
    expect(streamItems(inkling, [`${THINK}work<|end_mes`, 'sage|><|content_te', 'xt|>ok<|end'], OFF)).toEqual([
      [{ kind: 'reasoning', text: 'work' }],
      [],
      [{ kind: 'text', text: 'ok' }],
      [{ kind: 'text', text: '<|end' }],
    ]);
  });

  it('streams like the whole text for every pair of cut positions', () => {
    const text = `${THINK}a${END}${MM}x${TEXT}b<|end${END}${MM}n${JSON_TOOL}{}${END}`;
    for (const opts of ALL_OPTIONS) expect(firstSplitMismatch(inkling, text, opts, twoCutSplits(text))).toBeNull();
  });

  it('header text past the buffer limit stops separation and passes everything through as content', () => {
    const big = 'h'.repeat(PARSER_BUFFER_LIMIT + 1);
    const text = `${MM}${big}${THINK}tail`;
    const want = { reasoning: '', text: `${big}${THINK}tail` };
    expect(parsed(inkling, text, OFF)).toEqual(want);
    const half = PARSER_BUFFER_LIMIT / 2;
    expect(streamed(inkling, [MM, big.slice(0, half), big.slice(half), THINK, 'tail'], OFF)).toEqual(want);
    // Below the limit the header is still metadata.
    expect(parsed(inkling, `${MM}${'h'.repeat(1000)}${THINK}tail`, OFF)).toEqual({ reasoning: 'tail', text: '' });
  });
});
