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
import { type PromptLimit, mayBeSurelyTooLong, refuseSurelyTooLong } from '../prompt-length-bound.js';
import type { PromptPool } from './pool.js';
import { tracePhase } from '../../tracing/request-trace.js';

export const TEXT_OFF_LOOP_MIN_CHARS = 128;
export const FAST_ON_LOOP_MAX_CHARS = 1024;
/**
 * A text this long (~4k tokens: about 1 ms of encoding on the loop with the fast encoder, 15 ms
 * with the JS library) waits for a prompt thread that is still starting rather than being encoded
 * on the loop; THREAD_START_WAIT_MS bounds the wait (a thread starts in ~0.3-2 s).
 */
export const WAIT_FOR_THREAD_MIN_CHARS = 16_384;
const THREAD_START_WAIT_MS = 15_000;

export interface PromptEncoding {
  tokenizer: Pick<LoadedTokenizer, 'encode' | 'encoder'>;
  pool: PromptPool | null;
  /**
   * The largest context of the model's engines: a text that surely needs more tokens is refused
   * before it is encoded (prompt-length-bound.ts). Absent or null: no bound (no engine yet).
   */
  limit?: PromptLimit;
}

/** Renders `request` with `template` and encodes it (ChatTemplateError when the template raises). */
export async function encodeChatPrompt(enc: PromptEncoding, template: ChatTemplate, request: RenderRequest): Promise<number[]> {
  if (enc.tokenizer.encoder === 'fast' && template.interpretedBecause === null) {
    const text = tracePhase('template', () => template.render(request));
    return tracePhase('tokenize', () => encodePromptText(enc, text));
  }
  // A request whose text alone could be refused for its length is rendered here, so the bound
  // applies before any encoding (the thread would render and encode it whole); the rest (every
  // ordinary prompt) go to the thread as before.
  const limit = enc.limit;
  if (limit?.maxModelLen) {
    if (mayBeSurelyTooLong(limit.tokenizer, textLength(request.messages), limit.maxModelLen)) {
      const text = tracePhase('template', () => template.render(request));
      return tracePhase('tokenize', () => encodePromptText(enc, text));
    }
  }
  // On a prompt thread the render and the encode are one message: one `template` span covers both.
  let offLoop = enc.pool?.encodeChat(request);
  if (!offLoop && enc.pool && textLength(request.messages) >= WAIT_FOR_THREAD_MIN_CHARS && (await enc.pool.readySoon(THREAD_START_WAIT_MS))) {
    offLoop = enc.pool.encodeChat(request);
  }
  const ids = offLoop ? await tracePhase('template', () => afterFairTurn(offLoop)) : null;
  if (ids) return ids;
  const text = tracePhase('template', () => template.render(request));
  return tracePhase('tokenize', () => enc.tokenizer.encode(text, false));
}

/**
 * The characters of the strings in `value` (message contents, tool arguments): a cheap test of
 * whether a prompt could be long at all (a string's length costs nothing to read).
 */
function textLength(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') n += v.length;
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) stack.push(x);
  }
  return n;
}

/** Encodes text without special tokens. */
export async function encodePromptText(enc: PromptEncoding, text: string): Promise<number[]> {
  if (enc.limit) refuseSurelyTooLong(enc.limit.tokenizer, text, enc.limit.maxModelLen);
  const onLoopBelow = enc.tokenizer.encoder === 'fast' ? FAST_ON_LOOP_MAX_CHARS : TEXT_OFF_LOOP_MIN_CHARS;
  let offLoop = text.length >= onLoopBelow ? enc.pool?.encodeText(text) : null;
  if (!offLoop && enc.pool && text.length >= WAIT_FOR_THREAD_MIN_CHARS && (await enc.pool.readySoon(THREAD_START_WAIT_MS))) {
    offLoop = enc.pool.encodeText(text);
  }
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
