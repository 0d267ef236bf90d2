/**
 * Gateways for the stored-state tests: `smg launch` + a mock engine serving Qwen3 (template,
 * reasoning and tool parsers) under one served name, so several gateways on one database answer
 * the same model, with the replies the chain tests need and the history flags of the backend.
 */
import type { ReplyRule } from '../../../src/mock-engine/replies.js';
import { type AnyRig, startAnyRig } from './any-rig.js';
import { qwen3Model } from './models.js';

export const MODEL = 'smg-chat';

export const TOOL_CALL = '<think>\nI should call the weather tool.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

/** Qwen3 thinks first (the qwen3 reasoning parser is armed): every answer is a reasoning item, then the text. */
const think = (text: string) => `<think>\nA short thought.\n</think>\n\n${text}`;

/** First match wins: the history-dependent rules come before the ones their prompts also contain. */
export const REPLIES: ReplyRule[] = [
  // Turn 2 of a chain: only matches when turn 1's answer was replayed before the new question.
  { when: 'Nice to meet you, Ada.<|im_end|>\n<|im_start|>user\nWhat is my name?', reply: think('Your name is Ada.') },
  { when: 'What is my name?', reply: think('I do not know your name.') },
  { when: 'My name is Ada.', reply: think('Nice to meet you, Ada.') },
  // A tool loop: turn 2 sees turn 1's reasoning and call replayed (Qwen3's template renders the
  // reasoning of the turns after the last user message), then the tool's answer.
  { when: 'I should call the weather tool.\n</think>\n\n<tool_call>\n{"name": "get_weather"', reply: think('It is 18 degrees in Paris.') },
  { when: '<tool_response>\n18C\n</tool_response>', reply: think('Some tool said 18C.') },
  { when: 'weather in Paris', reply: TOOL_CALL },
  { when: 'Count to three', reply: think('One, two, three.') },
];

export function historyArgs(backend: 'memory' | 'postgres', pgUrl?: string): string[] {
  const args = ['--served-model-name', MODEL, '--reasoning-parser', 'qwen3', '--tool-call-parser', 'qwen', '--history-backend', backend];
  // Four connections per gateway: the PGlite server multiplexes them onto its one backend.
  if (backend === 'postgres') args.push('--postgres-db-url', pgUrl ?? '', '--postgres-pool-max', '4');
  return args;
}

export function startHistoryRig(backend: 'memory' | 'postgres', pgUrl?: string): Promise<AnyRig> {
  return startAnyRig('vllm', { modelDir: qwen3Model, replies: REPLIES, gatewayArgs: historyArgs(backend, pgUrl) });
}
