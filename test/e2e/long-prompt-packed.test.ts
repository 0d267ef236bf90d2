/**
 * A long prompt's ids reach both engines intact when its prompt thread sends them packed
 * (engine/msgpack/packed-token-ids.ts, from PACK_MIN_IDS ids on): the mocks decode each ADD with
 * their strict decoders and, in echo mode, generate the prompt's ids back, so the completion text
 * is the prompt's own text only if every id crossed the wire as it was encoded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACK_MIN_IDS } from '../../src/pipeline/prompt-pool/protocol.js';
import { encode } from './support/qwen.js';
import { startRig, type Rig } from './support/rig.js';
import { startTsRig, type TsRig } from './support/tokenspeed-rig.js';

// Words, digits and CJK: Qwen3 ids of every msgpack size (below 128, 256, 65,536 and above).
const PROMPT = Array.from({ length: 700 }, (_, i) => `Line ${i}: the quick brown fox, 世界你好 ${i * 7919}. a\n`).join('');
const IDS = encode(PROMPT);
const ECHO = ['--mock-mode', 'echo', '--max-model-len', String(4 * IDS.length)];

let vllm: Rig;
let tokenspeed: TsRig;
beforeAll(async () => {
  [vllm, tokenspeed] = await Promise.all([startRig({ engineArgs: ECHO }), startTsRig({ engineArgs: ECHO })]);
}, 120_000);
afterAll(async () => {
  await Promise.all([vllm?.stop(), tokenspeed?.stop()]);
});

describe('a prompt of PACK_MIN_IDS or more tokens', () => {
  it('is long enough to be packed', () => {
    expect(IDS.length).toBeGreaterThanOrEqual(PACK_MIN_IDS);
    expect(Math.max(...IDS)).toBeGreaterThan(0xffff);
  });

  for (const [name, rig] of [['vLLM', () => vllm], ['TokenSpeed', () => tokenspeed]] as const) {
    it(`${name}: the engine gets every id, as the event loop's tokenizer gives them`, async () => {
      const r = await rig().openai.completions.create({ model: rig().model, prompt: PROMPT, max_tokens: IDS.length, temperature: 0 });
      expect(r.usage?.prompt_tokens).toBe(IDS.length);
      expect(r.choices[0].text).toBe(PROMPT);
    }, 60_000);
  }
});
