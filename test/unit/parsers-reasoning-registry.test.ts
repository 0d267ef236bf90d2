/** The reasoning-parser registry and the §11.2 auto-detect table. */
import { describe, expect, it } from 'vitest';
import { detectReasoningParser, REASONING_PARSERS, reasoningParserNames } from '../../src/pipeline/parsers/reasoning/registry.js';

describe('registry', () => {
  it('has every §11.2 parser under its own name', () => {
    expect(reasoningParserNames()).toEqual([
      'base',
      'cohere_cmd',
      'deepseek_r1',
      'deepseek_v31',
      'deepseek_v4',
      'glm45',
      'inkling',
      'kimi',
      'kimi_k25',
      'kimi_k3',
      'kimi_thinking',
      'minimax',
      'nano_v3',
      'passthrough',
      'qwen3',
      'qwen3_thinking',
      'step3',
    ]);
    for (const [name, spec] of REASONING_PARSERS) expect(spec.name).toBe(name);
  });

  it('only inkling and kimi_k3 need special tokens (§7.3)', () => {
    expect([...REASONING_PARSERS.values()].filter((s) => s.needsSpecialTokens).map((s) => s.name).sort()).toEqual(['inkling', 'kimi_k3']);
  });

  it('creates an independent parser each time', () => {
    const spec = REASONING_PARSERS.get('qwen3');
    const opts = { startInReasoning: false, startMarkerConsumed: false };
    const a = spec?.create(opts);
    const b = spec?.create(opts);
    a?.push('<think>');
    expect(b?.push('x')).toEqual([{ kind: 'text', text: 'x' }]);
    expect(a?.push('x')).toEqual([{ kind: 'reasoning', text: 'x' }]);
  });
});

describe('detectReasoningParser', () => {
  const ROWS: Array<[model: string, parser: string | null]> = [
    // one name per table pattern
    ['deepseek-ai/DeepSeek-R1', 'deepseek_r1'],
    ['deepseek-ai/DeepSeek-V4-Flash', 'deepseek_v4'],
    ['local/deepseek_v4_base', 'deepseek_v4'],
    ['deepseek-ai/DeepSeek-V3.1-Terminus', 'deepseek_v31'],
    ['org/deepseek-v3-1-fp8', 'deepseek_v31'],
    ['Qwen/Qwen3-Thinking-Preview', 'qwen3_thinking'],
    ['Qwen/Qwen-Thinking', 'qwen3_thinking'],
    ['Qwen/Qwen3-8B', 'qwen3'],
    ['Qwen/Qwen2.5-7B-Instruct', 'qwen3'],
    ['zai-org/glm45-air', 'glm45'],
    ['zai/glm47-flash', 'glm45'],
    ['zai-org/GLM-5', 'glm45'],
    ['moonshotai/Kimi-K2-Thinking', 'kimi_thinking'],
    ['moonshotai/Kimi-K2.5', 'kimi_k25'],
    ['moonshotai/Kimi-K3', 'kimi_k3'],
    ['local/kimi_k3_int4', 'kimi_k3'],
    ['moonshotai/Kimi-K2-Instruct', 'kimi'],
    ['stepfun-ai/step3', 'step3'],
    ['MiniMaxAI/MiniMax-M2', 'minimax'],
    ['org/mm-m2-awq', 'minimax'],
    ['CohereForAI/c4ai-command-r-plus', 'cohere_cmd'],
    ['CohereLabs/command-a-reasoning-08-2025', 'cohere_cmd'],
    ['cohere/aya', 'cohere_cmd'],
    ['nvidia/Nemotron-Nano-9B-v2', 'nano_v3'],
    ['nvidia/nemotron-super-49b', 'nano_v3'],
    ['nvidia/nano-v3', 'nano_v3'],
    ['nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8', 'nano_v3'],
    ['inkling/inkling-base', 'inkling'],
    // no match
    ['meta-llama/Llama-3.1-8B-Instruct', null],
    ['openai/gpt-oss-20b', null],
    ['deepseek-ai/DeepSeek-V3', null],
    ['', null],
  ];
  for (const [model, parser] of ROWS) {
    it(`${JSON.stringify(model)} → ${parser}`, () => expect(detectReasoningParser(model)).toBe(parser));
  }

  it('the first matching pattern wins, in table order', () => {
    expect(detectReasoningParser('deepseek-ai/DeepSeek-R1-Distill-Qwen-7B')).toBe('deepseek_r1'); // not qwen3
    expect(detectReasoningParser('Qwen/Qwen3-235B-A22B-Thinking-2507')).toBe('qwen3'); // "qwen3-235b…-thinking" has no "qwen3-thinking"
    expect(detectReasoningParser('org/qwen3-thinking-8b')).toBe('qwen3_thinking'); // before qwen3
    expect(detectReasoningParser('moonshotai/kimi-k2-thinking-instruct')).toBe('kimi_thinking'); // before kimi
    expect(detectReasoningParser('moonshotai/Kimi-K2.5-Thinking')).toBe('kimi_k25'); // before kimi
    expect(detectReasoningParser('moonshotai/Kimi-K3-Thinking')).toBe('kimi_k3'); // before kimi
    expect(detectReasoningParser('org/deepseek-r1-on-qwen3-thinking')).toBe('deepseek_r1');
    expect(detectReasoningParser('org/qwen3-on-deepseek-v3.1')).toBe('deepseek_v31'); // deepseek rows precede qwen rows
    expect(detectReasoningParser('org/minimax-m2-step3')).toBe('step3'); // step3 row precedes minimax
    expect(detectReasoningParser('org/kimi-glm45-merge')).toBe('glm45'); // glm rows precede kimi
  });

  it('matches case-insensitively', () => {
    expect(detectReasoningParser('DEEPSEEK-R1')).toBe('deepseek_r1');
    expect(detectReasoningParser('MoonshotAI/KIMI-K2.5')).toBe('kimi_k25');
  });

  it('every detected name is registered', () => {
    for (const [, parser] of ROWS) if (parser !== null) expect(REASONING_PARSERS.has(parser)).toBe(true);
  });
});
