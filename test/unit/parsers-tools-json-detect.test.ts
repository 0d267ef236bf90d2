/**
 * Tool-parser auto-detection (request-pipeline §11.3): exact key first, else the longest pattern
 * stem the lowercased model name contains, else passthrough.
 */
import { describe, expect, it } from 'vitest';
import { detectToolParser, TOOL_PARSER_PATTERNS } from '../../src/pipeline/parsers/tools/detect.js';

describe('detectToolParser', () => {
  it("follows the spec's examples", () => {
    expect(detectToolParser('meta-llama/Llama-3.1-8B-Instruct')).toBe('json');
    expect(detectToolParser('Qwen/Qwen3-8B')).toBe('qwen');
  });

  it('prefers the longest stem: deepseek-v3.2-exp over deepseek-v3.2 over deepseek-v3.1 over deepseek-v3 over deepseek-', () => {
    expect(detectToolParser('deepseek-v3')).toBe('deepseek');
    expect(detectToolParser('deepseek-v3-0324')).toBe('deepseek');
    expect(detectToolParser('deepseek-v3.1')).toBe('deepseek31');
    expect(detectToolParser('deepseek-v3.1-terminus')).toBe('deepseek31');
    expect(detectToolParser('deepseek-v3.2')).toBe('deepseek32');
    expect(detectToolParser('deepseek-v3.2-exp')).toBe('deepseek31');
    expect(detectToolParser('deepseek-v4-flash')).toBe('deepseek_v4');
    expect(detectToolParser('deepseek-r1')).toBe('pythonic');
    expect(detectToolParser('deepseek-coder-33b')).toBe('pythonic');
    expect(detectToolParser('deepseek-ai/DeepSeek-V3')).toBe('deepseek');
    expect(detectToolParser('deepseek-ai/DeepSeek-V3.1-Terminus')).toBe('deepseek31');
    expect(detectToolParser('deepseek-ai/DeepSeek-V3.2-Exp')).toBe('deepseek31');
    expect(detectToolParser('deepseek-ai/DeepSeek-V3.2')).toBe('deepseek32');
    expect(detectToolParser('deepseek-ai/DeepSeek-V4-Flash')).toBe('deepseek_v4');
  });

  it('maps real model names of every family', () => {
    const cases: Array<[string, string]> = [
      ['gpt-4o-mini', 'json'],
      ['gpt-3.5-turbo', 'json'],
      ['claude-3-5-sonnet-20241022', 'json'],
      ['gemini-1.5-pro', 'json'],
      ['google/gemma-2-9b-it', 'json'],
      ['palm-2', 'json'],
      ['mistralai/Mistral-7B-Instruct-v0.3', 'mistral'],
      ['mistralai/Mistral-Small-3.2-24B-Instruct-2506', 'mistral'],
      ['mistralai/Mixtral-8x22B-Instruct-v0.1', 'mistral'],
      ['Qwen/Qwen2.5-7B-Instruct', 'qwen'],
      ['Qwen/Qwen2.5-Coder-32B-Instruct', 'qwen'],
      ['qwen3-235b-a22b', 'qwen'],
      ['Qwen/Qwen3-Coder-30B-A3B-Instruct', 'qwen_xml'],
      ['QWEN/QWEN3-CODER-480B', 'qwen_xml'],
      ['Qwen/Qwen3.5-397B-A17B', 'qwen_xml'],
      ['qwen3.6-plus', 'qwen_xml'],
      ['Qwen/Qwen3.8-72B', 'qwen_xml'],
      ['nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B', 'qwen_xml'],
      ['nvidia/Llama-3.1-Nemotron-70B', 'json'],
      ['meta-llama/Llama-3.2-3B-Instruct', 'llama'],
      ['meta-llama-3.2-1b', 'llama'],
      ['meta-llama/Llama-4-Scout-17B-16E-Instruct', 'pythonic'],
      ['meta-llama-4-maverick', 'pythonic'],
      ['meta-llama/Meta-Llama-3-8B-Instruct', 'json'],
      ['zai-org/GLM-4.5-Air', 'glm45_moe'],
      ['zai-org/GLM-4.6', 'glm45_moe'],
      ['zai-org/GLM-4.7', 'glm47_moe'],
      ['zai-org/GLM-5', 'glm47_moe'],
      ['THUDM/glm-4-9b-chat', 'json'],
      ['sbintuitions/sarashina2.2-3b-instruct', 'sarashina'],
      ['stepfun-ai/step3', 'step3'],
      ['stepfun-ai/Step-3.5-Flash', 'step3'],
      ['moonshotai/Kimi-K2-Instruct-0905', 'kimik2'],
      ['moonshotai/Kimi-K3', 'kimi_k3'],
      ['kimi_k3-preview', 'kimi_k3'],
      ['Inkling-Chat-7B', 'inkling'],
      ['MiniMaxAI/MiniMax-M2', 'minimax_m2'],
      ['CohereForAI/c4ai-command-r-plus', 'cohere'],
      ['command-r7b-12-2024', 'cohere'],
      ['CohereLabs/command-a-03-2025', 'cohere'],
      ['cohere-aya', 'cohere'],
    ];
    for (const [model, parser] of cases) expect(detectToolParser(model), model).toBe(parser);
  });

  it('falls back to passthrough when nothing matches', () => {
    expect(detectToolParser('')).toBe('passthrough');
    expect(detectToolParser('my-org/custom-model')).toBe('passthrough');
    expect(detectToolParser('mistralai/Devstral-Small-2507')).toBe('passthrough');
    expect(detectToolParser('llama3')).toBe('passthrough');
  });

  it('maps every table pattern: as an exact key, and inside a longer name', () => {
    for (const [pattern, parser] of TOOL_PARSER_PATTERNS) {
      expect(detectToolParser(pattern), pattern).toBe(parser);
      expect(detectToolParser(`org/${pattern.slice(0, -1)}x-model`), pattern).toBe(parser);
    }
  });
});
