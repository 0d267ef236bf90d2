/**
 * Where a prompt is rendered and encoded: on the model's prompt thread whenever one is ready,
 * else right here on the event loop. Both give the same ids: the threads load the same tokenizer
 * and template, and decline the few texts they cannot encode exactly.
 *
 * Measured on Qwen3 (scripts/tokenize-bench.ts --crossover, shared 2-core box): rendering even a
 * 13-token chat prompt costs the loop ~0.3 ms, the hop ~0.04 ms, so every chat prompt goes to the
 * thread (the hop adds ~0.25 ms of wall time to a tiny one). Plain text is cheap to encode when
 * short: under TEXT_OFF_LOOP_MIN_CHARS characters it stays on the loop (≤ ~0.1 ms there).
 */
import type { ChatTemplate, RenderRequest } from '../chat-template.js';
import type { LoadedTokenizer } from '../tokenizer/index.js';
import { fairTurn } from '../../util/fair-turn.js';
import type { PromptPool } from './pool.js';

export const TEXT_OFF_LOOP_MIN_CHARS = 128;

export interface PromptEncoding {
  tokenizer: Pick<LoadedTokenizer, 'encode'>;
  pool: PromptPool | null;
}

/** Renders `request` with `template` and encodes it (ChatTemplateError when the template raises). */
export async function encodeChatPrompt(enc: PromptEncoding, template: ChatTemplate, request: RenderRequest): Promise<number[]> {
  const offLoop = enc.pool?.encodeChat(request);
  const ids = offLoop ? await afterFairTurn(offLoop) : null;
  return ids ?? enc.tokenizer.encode(template.render(request), false);
}

/** Encodes text without special tokens. */
export async function encodePromptText(enc: PromptEncoding, text: string): Promise<number[]> {
  const offLoop = text.length >= TEXT_OFF_LOOP_MIN_CHARS ? enc.pool?.encodeText(text) : null;
  const ids = offLoop ? await afterFairTurn(offLoop) : null;
  return ids ?? enc.tokenizer.encode(text, false);
}

/**
 * The thread answers a burst of prompts in one message drain; what each request does next (engine
 * submit, response head) waits its turn so the burst does not hold the loop (util/fair-turn.ts).
 */
async function afterFairTurn<T>(reply: Promise<T>): Promise<T> {
  const value = await reply;
  const wait = fairTurn();
  if (wait) await wait;
  return value;
}
