/**
 * Token frames written straight into the pending bytes (SseEncoder.eventInto, FrameBytes.appendAround)
 * are byte for byte the frames event() makes: for every kind of text JSON has to escape, for both
 * delta kinds, several choices, and streams interleaving in the shared arena.
 */
import { describe, expect, it } from 'vitest';
import { chatSse, type ChatMeta } from '../../src/api/openai/chat-respond.js';
import { FrameBytes } from '../../src/api/frame-bytes.js';
import { writeJsonString } from '../../src/api/json-bytes.js';
import type { GenEvent } from '../../src/pipeline/events.js';
import type { Decoder } from '../../src/pipeline/detokenizer.js';

const tok: Decoder = { decode: () => '' };
const meta = (over: Partial<ChatMeta> = {}): ChatMeta => ({
  id: 'chatcmpl-9f"x',
  created: 1700000000,
  model: 'Qwen/Qwen3-0.6B',
  n: 2,
  tokenizer: tok,
  topLogprobs: null,
  includeUsage: false,
  ...over,
});

/** Texts JSON.stringify escapes or encodes in every way it can. */
const TEXTS = [
  'Hello', ' world', '', '"', '\\', 'a"b\\c', '\n', '\t\r\b\f', '\u0000\u001f', '\u007f', 'é', '日本語', '😀', 'a😀b',
  '\ud83d', 'x\ude00', '\u2028\u2029', '</script>', ' '.repeat(300), 'ß'.repeat(50), '\uFFFD',
];

describe('json-bytes: writeJsonString', () => {
  it('writes exactly the UTF-8 of JSON.stringify for every text', () => {
    for (const t of TEXTS) {
      const buf = Buffer.alloc(8 + 2 + 6 * t.length);
      const end = writeJsonString(buf, 4, t);
      expect(buf.subarray(4, end).toString('utf8')).toBe(JSON.stringify(t));
      expect(end - 4).toBe(Buffer.byteLength(JSON.stringify(t)));
    }
  });
});

describe('chat SSE: eventInto writes the frames event() makes', () => {
  it('content and reasoning deltas, both choices, every text; role, logprobs and end frames stay with event()', () => {
    const direct = chatSse(meta());
    const viaString = chatSse(meta());
    const out = new FrameBytes();
    let expected = '';
    const evs: GenEvent[] = [];
    for (const index of [0, 1]) {
      // The first event of a choice carries its role chunk: event() makes that one.
      evs.push({ kind: 'text', index, text: 'first', logprobs: null });
      for (const t of TEXTS) {
        evs.push({ kind: 'text', index, text: t, logprobs: null });
        evs.push({ kind: 'reasoning', index, text: t });
      }
    }
    evs.push({ kind: 'tool_start', index: 0, tool: 0, id: 'call_1', name: 'f' });
    evs.push({ kind: 'end', index: 0, finishReason: 'stop', matchedStop: null, promptTokens: 1, completionTokens: 2, cachedTokens: 0, logprobs: null });
    let fast = 0;
    for (const ev of evs) {
      expected += viaString.event(ev);
      if (direct.eventInto?.(ev, out)) fast++;
      else out.append(direct.event(ev));
    }
    expect(fast).toBe(2 * 2 * TEXTS.length);
    expect(out.take().toString('utf8')).toBe(expected);
  });

  it('a text with logprobs requested goes through event() (its logprobs are in the frame)', () => {
    const enc = chatSse(meta({ topLogprobs: 1, n: 1 }));
    const out = new FrameBytes();
    out.append(enc.event({ kind: 'text', index: 0, text: 'a', logprobs: null }));
    const lp = [{ tokenId: 1, logprob: -0.5, rank: 1, top: [] }];
    expect(enc.eventInto?.({ kind: 'text', index: 0, text: 'b', logprobs: lp }, out)).toBe(false);
    // Requested but none for this text: the frame says "logprobs":null, written directly.
    expect(enc.eventInto?.({ kind: 'text', index: 0, text: 'c', logprobs: null }, out)).toBe(true);
  });

  it('streams interleaving in the shared arena each get their own frames', () => {
    const n = 50;
    const encs = Array.from({ length: n }, (_, k) => chatSse(meta({ id: `chatcmpl-${k}`, n: 1 })));
    const refs = Array.from({ length: n }, (_, k) => chatSse(meta({ id: `chatcmpl-${k}`, n: 1 })));
    const outs = Array.from({ length: n }, () => new FrameBytes());
    const want = Array.from({ length: n }, () => '');
    const got = Array.from({ length: n }, () => '');
    for (let step = 0; step < 30; step++) {
      for (let k = 0; k < n; k++) {
        const ev: GenEvent = { kind: step % 3 === 2 ? 'reasoning' : 'text', index: 0, text: TEXTS[(step + k) % TEXTS.length], logprobs: null } as GenEvent;
        want[k] += refs[k].event(ev);
        if (!encs[k].eventInto?.(ev, outs[k])) outs[k].append(encs[k].event(ev));
      }
      // Every other step a stream's bytes are taken (written) and its buffer released.
      for (let k = 0; k < n; k++) {
        if ((step + k) % 2 === 0) {
          got[k] += outs[k].take().toString('utf8');
          outs[k].release();
        }
      }
    }
    for (let k = 0; k < n; k++) {
      if (outs[k].size > 0) got[k] += outs[k].take().toString('utf8');
      expect(got[k]).toBe(want[k]);
    }
  });
});
