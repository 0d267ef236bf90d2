/**
 * Where a prompt is rendered and encoded: on a prompt worker thread when the model has a pool with
 * a thread ready and the prompt is big enough for the hop to pay, else right here on the event
 * loop. Both give the same ids: the threads load the same tokenizer and template.
 */
import type { ChatTemplate, RenderRequest } from '../chat-template.js';
import type { LoadedTokenizer } from '../tokenizer/index.js';
import type { PromptPool } from './pool.js';

/**
 * Prompts with fewer characters of text than this stay on the event loop: for them render +
 * encode costs less loop time than the hop's own messaging (scripts/tokenize-bench.ts measures
 * the crossover).
 */
export const OFF_LOOP_MIN_CHARS = 1024;

// Deeper than this, the walk stops and the prompt counts as big.
const MAX_DEPTH = 32;

/** What is left of `budget` after the characters of every string in `value` (≤ 0: at least that many). */
function charsLeft(value: unknown, budget: number, depth: number): number {
  if (typeof value === 'string') return budget - value.length;
  if (value === null || typeof value !== 'object') return budget;
  if (depth > MAX_DEPTH) return 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && budget > 0; i++) budget = charsLeft(value[i], budget, depth + 1);
    return budget;
  }
  for (const key in value) {
    budget = charsLeft((value as Record<string, unknown>)[key], budget, depth + 1);
    if (budget <= 0) return budget;
  }
  return budget;
}

/** Whether the strings in `value` add up to at least `chars` characters; stops counting there. */
export function hasAtLeastChars(value: unknown, chars: number): boolean {
  return charsLeft(value, chars, 0) <= 0;
}

export interface PromptEncoding {
  tokenizer: Pick<LoadedTokenizer, 'encode'>;
  pool: PromptPool | null;
}

/** Renders `request` with `template` and encodes it (ChatTemplateError when the template raises). */
export async function encodeChatPrompt(enc: PromptEncoding, template: ChatTemplate, request: RenderRequest): Promise<number[]> {
  if (enc.pool && hasAtLeastChars(request, OFF_LOOP_MIN_CHARS)) {
    const ids = await enc.pool.encodeChat(request);
    if (ids) return ids;
  }
  return enc.tokenizer.encode(template.render(request), false);
}

/** Encodes text without special tokens. */
export async function encodePromptText(enc: PromptEncoding, text: string): Promise<number[]> {
  if (enc.pool && text.length >= OFF_LOOP_MIN_CHARS) {
    const ids = await enc.pool.encodeText(text);
    if (ids) return ids;
  }
  return enc.tokenizer.encode(text, false);
}
