import { describe, expect, it } from 'vitest';
import { isHarmonyModel } from '../../src/pipeline/harmony/detect.js';

describe('isHarmonyModel', () => {
  it('recognizes gpt-oss by architecture, model_type or id', () => {
    expect(isHarmonyModel({ architectures: ['GptOssForCausalLM'] })).toBe(true);
    expect(isHarmonyModel({ modelType: 'gpt_oss' })).toBe(true);
    expect(isHarmonyModel({ modelId: 'openai/gpt-oss-20b' })).toBe(true);
    expect(isHarmonyModel({ modelId: '/models/GPT-OSS-120B' })).toBe(true);
    expect(isHarmonyModel({ modelId: 'my-Gpt-Oss-finetune', modelType: 'llama', architectures: ['LlamaForCausalLM'] })).toBe(true);
  });

  it('does not claim other models', () => {
    expect(isHarmonyModel({})).toBe(false);
    expect(isHarmonyModel({ modelId: 'Qwen/Qwen3-8B', modelType: 'qwen3', architectures: ['Qwen3ForCausalLM'] })).toBe(false);
    expect(isHarmonyModel({ modelId: 'gpt_oss-20b' })).toBe(false);
    expect(isHarmonyModel({ modelType: 'gpt-oss', architectures: ['gptossforcausallm'] })).toBe(false);
    expect(isHarmonyModel({ modelId: null, architectures: null, modelType: null })).toBe(false);
  });
});
