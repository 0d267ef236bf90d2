/**
 * Multi-byte text split across tokens: the mock streams a script of emoji ZWJ sequences, flags,
 * skin tones, CJK and an astral-plane ideograph one token per step; many of those tokens are
 * partial UTF-8 on their own. The gateway must never emit U+FFFD and must reassemble the text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode, encode } from './support/qwen.js';
import { type Rig, startRig } from './support/rig.js';

const TEXT = 'Family: 👨‍👩‍👧‍👦, flags 🇺🇸🇯🇵, skin 👍🏽 中文测试：我们今天去公园散步。𠜎 🚀✨';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ engineArgs: ['--mock-text', TEXT] });
});
afterAll(async () => {
  await rig?.stop();
});

describe('unicode across token boundaries', () => {
  it('the fixture really splits characters across tokens', () => {
    const ids = encode(TEXT);
    const partial = ids.filter((id) => decode([id]).includes('\uFFFD'));
    expect(partial.length).toBeGreaterThan(10);
    expect(decode(ids)).toBe(TEXT);
  });

  it('chat stream: deltas concatenate to the text, none contains U+FFFD', async () => {
    const stream = await rig.openai.chat.completions.create({
      model: rig.model,
      messages: [{ role: 'user', content: '表情 🙂' }],
      stream: true,
    });
    const deltas: string[] = [];
    for await (const c of stream) for (const ch of c.choices) if (ch.delta.content) deltas.push(ch.delta.content);
    expect(deltas.join('')).toBe(TEXT);
    expect(deltas.filter((d) => d.includes('\uFFFD'))).toEqual([]);
    // Held bytes are released with the character they complete, so there are fewer deltas than tokens.
    expect(deltas.length).toBeLessThan(encode(TEXT).length);
  });

  it('chat non-stream and completions stream give the same text', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'x' }] });
    expect(r.choices[0].message.content).toBe(TEXT);

    const stream = await rig.openai.completions.create({ model: rig.model, prompt: '中文', stream: true });
    const deltas: string[] = [];
    for await (const c of stream) for (const ch of c.choices) if (ch.text) deltas.push(ch.text);
    expect(deltas.join('')).toBe(TEXT);
    expect(deltas.some((d) => d.includes('\uFFFD'))).toBe(false);
  });

  it('a stop string inside CJK text trims at the right character', async () => {
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'x' }], stop: ['公园'] });
    expect(r.choices[0].message.content).toBe(TEXT.slice(0, TEXT.indexOf('公园')));
    expect(r.choices[0].finish_reason).toBe('stop');
  });

  it('max_tokens cutting inside an emoji drops the incomplete bytes instead of emitting U+FFFD', async () => {
    const ids = encode(TEXT);
    // The first token that is partial UTF-8 on its own: stop right after it.
    const cut = ids.findIndex((id) => decode([id]).includes('\uFFFD')) + 1;
    const expected = decode(ids.slice(0, cut)).replace(/\uFFFD+$/u, '');
    const r = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'x' }], max_tokens: cut });
    expect(r.choices[0].finish_reason).toBe('length');
    expect(r.choices[0].message.content).toBe(expected);
  });
});
