/**
 * Request → engine SamplingSpec (request-pipeline §5) and the pre-send checks of §5.6 that keep
 * values a real engine would choke on from ever being sent.
 */
import { describe, expect, it } from 'vitest';
import { type StopVocabulary, buildSampling } from '../../src/pipeline/build-sampling.js';
import { PipelineError } from '../../src/pipeline/errors.js';
import { subSeed } from '../../src/pipeline/fan-out.js';
import { parseChatRequest } from '../../src/api/openai/chat-request.js';

/** "!" and "\n" are single tokens; everything else encodes one id per character. */
const vocab: StopVocabulary = {
  encode: (text) => (text === '!' ? [4] : text === '\n' ? [5] : [...text].map((ch) => 100 + ch.charCodeAt(0))),
  eosTokenIds: [9, 10],
  vocabSize: 1000,
};

const req = (over: Record<string, unknown> = {}) => parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], ...over });
const build = (over: Record<string, unknown> = {}, opts: Partial<Parameters<typeof buildSampling>[1]> = {}) =>
  buildSampling(req(over), { runtime: 'vllm', promptLen: 10, maxModelLen: 64, vocab, logprobs: null, ...opts });

function rejection(fn: () => unknown): PipelineError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineError);
    return err as PipelineError;
  }
  throw new Error('expected a 400');
}

describe('buildSampling', () => {
  it('engine defaults for an empty request (§5.2)', () => {
    const { spec } = build();
    expect(spec).toMatchObject({
      temperature: 1,
      topP: 1,
      topK: 0,
      minP: 0,
      presencePenalty: 0,
      frequencyPenalty: 0,
      repetitionPenalty: 1,
      seed: null,
      maxTokens: 54,
      minTokens: 0,
      ignoreEos: false,
      logprobs: null,
      logitBias: null,
      structured: null,
    });
  });

  it('default max_tokens is the room left in the context; an explicit one is kept', () => {
    expect(build({}, { promptLen: 63 }).spec.maxTokens).toBe(1);
    expect(build({ max_tokens: 5 }).spec.maxTokens).toBe(5);
    expect(build({ max_tokens: 54 }).spec.maxTokens).toBe(54);
  });

  it('prompt filling the context, max_tokens beyond it, an empty prompt: 400 before sending', () => {
    const full = rejection(() => build({}, { promptLen: 64 }));
    expect(full.status).toBe(400);
    expect(full.message).toBe(
      "This model's maximum context length is 64 tokens. However, your request has 64 input tokens. Please reduce the length of the input messages.",
    );
    expect(rejection(() => build({ max_tokens: 55 })).message).toContain("'max_tokens' or 'max_completion_tokens' is too large: 55");
    expect(rejection(() => build({}, { promptLen: 0 })).message).toContain('prompt is empty');
  });

  it('a ceiling max_tokens (Anthropic Messages) is lowered to the room left; a prompt over the context is still a 400', () => {
    const ceiling = (maxTokens: number, promptLen: number) =>
      buildSampling({ ...req(), maxTokens, maxTokensCeiling: true }, { runtime: 'vllm', promptLen, maxModelLen: 64, vocab, logprobs: null });
    expect(ceiling(32000, 10).spec.maxTokens).toBe(54);
    expect(ceiling(5, 10).spec.maxTokens).toBe(5);
    expect(ceiling(32000, 63).spec.maxTokens).toBe(1);
    expect(rejection(() => ceiling(32000, 64)).message).toContain('However, your request has 64 input tokens');
  });

  it('min_tokens above the defaulted max_tokens is refused', () => {
    expect(rejection(() => build({ min_tokens: 10 }, { promptLen: 60 })).message).toBe('min_tokens cannot exceed max_tokens/max_completion_tokens');
  });

  it('vLLM: user stop ids, then single-token stop strings, then EOS ids; EOS primary is the first', () => {
    const b = build({ stop_token_ids: [7], stop: ['!', 'ab', '\n'] });
    expect(b.spec.stopTokenIds).toEqual([7, 4, 5, 9, 10]);
    expect(b.spec.eosTokenId).toBe(9);
    expect(b.spec.allStopTokenIds).toEqual([7, 4, 5, 9, 10]);
    expect([...b.stopTokens]).toEqual([
      [7, null],
      [4, '!'],
      [5, '\n'],
      [9, null],
      [10, null],
    ]);
    expect(b.stopStrings).toEqual(['!', 'ab', '\n']);
  });

  it('ignore_eos: no EOS on the request and none in the decoder stop set', () => {
    const b = build({ ignore_eos: true });
    expect(b.spec.eosTokenId).toBeNull();
    expect(b.spec.stopTokenIds).toEqual([]);
    expect(b.stopTokens.size).toBe(0);
    // Still masked until min_tokens, as SMG builds _all_stop_token_ids regardless of ignore_eos.
    expect(b.spec.allStopTokenIds).toEqual([9, 10]);
  });

  it('TokenSpeed stops at EOS itself: EOS stays out of the engine stop ids but in the decoder stops', () => {
    const b = build({}, { runtime: 'tokenspeed' });
    expect(b.spec.stopTokenIds).toEqual([]);
    expect([...b.stopTokens.keys()]).toEqual([9, 10]);
  });

  it('top_k -1 becomes 0 (disabled); logit_bias ids must be in the vocabulary', () => {
    expect(build({ top_k: -1 }).spec.topK).toBe(0);
    expect(build({ top_k: 40 }).spec.topK).toBe(40);
    expect(rejection(() => build({ logit_bias: { '5000': 1 } })).message).toContain('out of vocabulary');
    expect(build({ logit_bias: { '5': 100, '6': -100 } }).spec.logitBias).toEqual(new Map([[5, 100], [6, -100]]));
    // Outside [-100, 100] is the client's error (OpenAI's range), not silently clamped.
    expect(rejection(() => build({ logit_bias: { '5': 500 } })).message).toBe("logit_bias: value for '5' must be in [-100, 100], got 500");
  });
});

describe('subSeed', () => {
  it('seed + i with i32 wrap-around; no seed stays none', () => {
    expect(subSeed(10, 2)).toBe(12);
    expect(subSeed(2 ** 31 - 1, 1)).toBe(-(2 ** 31));
    expect(subSeed(null, 3)).toBeNull();
  });
});
