/**
 * Where a prompt is rendered and encoded: on the event loop when that is cheap, else on the
 * model's prompt thread whenever one is ready. Both give the same ids: the threads load the same
 * tokenizer and template, and decline the few texts they cannot encode exactly.
 *
 * With a compiled template (chat-prompt/template-compiler/: a Qwen3 chat renders in ~2-10 µs, a 2k-token one
 * in ~1 µs) and the fast encoder on the loop (fast-bpe/: ~8 µs for a short chat prompt, ~0.2 µs
 * per token), the loop renders every prompt itself and encodes texts under
 * FAST_ON_LOOP_MAX_CHARS (≤ ~50 µs there); longer text goes to a thread as text. The hop costs
 * more than that: a postMessage each way and a thread wake-up, ~60-80 µs of CPU in all.
 *
 * Otherwise (an interpreted template: ~0.2-1 ms per render; or the JS library on the loop: ~70 µs
 * for a short prompt, ~4 µs per token) every chat prompt goes to the thread and plain text from
 * TEXT_OFF_LOOP_MIN_CHARS characters on.
 */
import type { ChatTemplate, RenderRequest } from '../chat-prompt/chat-template.js';
import type { LoadedTokenizer } from '../tokenizer/index.js';
import { fairTurn } from '../../util/fair-turn.js';
import type { PromptPool } from './pool.js';

export const TEXT_OFF_LOOP_MIN_CHARS = 128;
export const FAST_ON_LOOP_MAX_CHARS = 1024;

export interface PromptEncoding {
  tokenizer: Pick<LoadedTokenizer, 'encode' | 'encoder'>;
  pool: PromptPool | null;
}

/** Renders `request` with `template` and encodes it (ChatTemplateError when the template raises). */
export async function encodeChatPrompt(enc: PromptEncoding, template: ChatTemplate, request: RenderRequest): Promise<number[]> {
  if (enc.tokenizer.encoder === 'fast' && template.interpretedBecause === null) {
    return encodePromptText(enc, template.render(request));
  }
  const offLoop = enc.pool?.encodeChat(request);
  const ids = offLoop ? await afterFairTurn(offLoop) : null;
  return ids ?? enc.tokenizer.encode(template.render(request), false);
}

/** Encodes text without special tokens. */
export async function encodePromptText(enc: PromptEncoding, text: string): Promise<number[]> {
  const onLoopBelow = enc.tokenizer.encoder === 'fast' ? FAST_ON_LOOP_MAX_CHARS : TEXT_OFF_LOOP_MIN_CHARS;
  const offLoop = text.length >= onLoopBelow ? enc.pool?.encodeText(text) : null;
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
