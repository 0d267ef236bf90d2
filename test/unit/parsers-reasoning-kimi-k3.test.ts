/** Kimi K3's XTML think channel (families/kimi-k3.ts). */
import { describe, expect, it } from 'vitest';
import { REASONING_PARSERS } from '../../src/pipeline/parsers/reasoning/registry.js';
import type { ReasoningParserSpec } from '../../src/pipeline/parsers/reasoning/types.js';
import { ALL_OPTIONS, ARMED, firstSplitMismatch, OFF, parsed, PREFILLED, streamItems, twoCutSplits } from '../fixtures/reasoning/harness.js';

const k3 = REASONING_PARSERS.get('kimi_k3') as ReasoningParserSpec;
const TO = '<|open|>think<|sep|>';
const TC = '<|close|>think<|sep|>';
const RO = '<|open|>response<|sep|>';
const RC = '<|close|>response<|sep|>';
const MO = '<|open|>message<|sep|>';
const MC = '<|close|>message<|sep|>';
const TOOLS = '<|open|>tools<|sep|>CALLS<|close|>tools<|sep|>';

describe('kimi_k3', () => {
  it('needs special tokens kept in the decode', () => {
    expect(k3.needsSpecialTokens).toBe(true);
  });

  it('separates an explicit think channel and unwraps the response', () => {
    expect(parsed(k3, `${TO}step${TC}${RO}answer${RC}${MC}`, OFF)).toEqual({ reasoning: 'step', text: 'answer' });
  });

  it('armed (pre-filled think open): reasoning until the think close', () => {
    expect(parsed(k3, `step${TC}${RO}answer`, ARMED)).toEqual({ reasoning: 'step', text: 'answer' });
  });

  it('keeps the tools channel verbatim for the tool parser', () => {
    expect(parsed(k3, `${TO}r${TC}${RO}answer${RC}${TOOLS}${MC}`, OFF)).toEqual({ reasoning: 'r', text: `answer${TOOLS}` });
  });

  it('a tools opener ends a pre-filled think channel without a think close (forced tool call)', () => {
    expect(parsed(k3, `let me check${TOOLS}${MC}`, ARMED)).toEqual({ reasoning: 'let me check', text: TOOLS });
    expect(parsed(k3, `${TOOLS}${MC}`, ARMED)).toEqual({ reasoning: '', text: TOOLS });
  });

  it('a response opener ends reasoning too', () => {
    expect(parsed(k3, `thought${RO}answer${RC}`, ARMED)).toEqual({ reasoning: 'thought', text: 'answer' });
  });

  it('a response close inside a pre-filled channel ends reasoning; what came before stays reasoning', () => {
    // SMG's non-stream path would call it all content; a stream cannot take reasoning back.
    expect(parsed(k3, `The answer is 42.${RC}${MC}`, ARMED)).toEqual({ reasoning: 'The answer is 42.', text: '' });
    expect(parsed(k3, `x${MC}after`, ARMED)).toEqual({ reasoning: 'x', text: 'after' });
  });

  it('no think channel: all content, wrapper markers removed', () => {
    expect(parsed(k3, `${MO}${RO}just an answer${RC}${MC}`, OFF)).toEqual({ reasoning: '', text: 'just an answer' });
    expect(parsed(k3, 'plain', OFF)).toEqual({ reasoning: '', text: 'plain' });
  });

  it('truncated thinking stays reasoning', () => {
    expect(parsed(k3, `${TO}still thinking`, OFF)).toEqual({ reasoning: 'still thinking', text: '' });
    expect(parsed(k3, 'still thinking, no markers', ARMED)).toEqual({ reasoning: 'still thinking, no markers', text: '' });
  });

  it('text before the think open is content', () => {
    expect(parsed(k3, `hi ${TO}r${TC}t`, OFF)).toEqual({ reasoning: 'r', text: 'hi t' });
  });

  it('a stray think close when not armed is removed and the rest is content', () => {
    expect(parsed(k3, `a${TC}b${TO}c`, OFF)).toEqual({ reasoning: '', text: `ab${TO}c` });
  });

  it('a think open the model repeats inside a pre-filled channel is dropped', () => {
    expect(parsed(k3, `${TO}r${TC}t`, ARMED)).toEqual({ reasoning: 'r', text: 't' });
    expect(parsed(k3, `${TO}r${TC}t`, PREFILLED)).toEqual({ reasoning: 'r', text: 't' });
    expect(parsed(k3, `r${TO}${TC}t`, PREFILLED)).toEqual({ reasoning: `r${TO}`, text: 't' });
  });

  it('holds split markers and flushes a partial one at end of stream', () => {
    expect(streamItems(k3, ['step<|clo', 'se|>think<|sep|>', `${RO}ans`, 'wer<|clo'], ARMED)).toEqual([
      [{ kind: 'reasoning', text: 'step' }],
      [],
      [{ kind: 'text', text: 'ans' }],
      [{ kind: 'text', text: 'wer' }],
      [{ kind: 'text', text: '<|clo' }],
    ]);
  });

  it('a marker split across every pair of positions streams like the whole text', () => {
    const text = `a${TO}r<|${TC}${RO}x${RC}${TOOLS}<|close|>mess`;
    for (const opts of ALL_OPTIONS) expect(firstSplitMismatch(k3, text, opts, twoCutSplits(text))).toBeNull();
  });
});
