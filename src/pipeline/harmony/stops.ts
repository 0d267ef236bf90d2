/**
 * Stops for Harmony generation (request-pipeline.md §11.6).
 *
 * Engine stop ids: `<|return|>` (the answer is done) and `<|call|>` (a tool must run) end
 * generation; `<|end|>` only ends one message and must not stop it (format guide "Chat
 * conversation format"; openai/harmony `registry.rs` `stop_formatting_tokens_for_assistant_actions`,
 * which SMG sends as stop_token_ids in harmony/builder.rs `build_from_chat`).
 *
 * User stop strings: only the final channel's text is matched (the text the user reads as the
 * answer), so a stop string cannot cut the chain of thought or a call's JSON. SMG differs: it also
 * scans analysis text (harmony/processor.rs, harmony/streaming.rs) with separate scanners. SMG keeps
 * the matched stop as a suffix of the text (§11.6); construct the filter accordingly
 * (`new StopStringMatcher(stops, { includeStop: true })`).
 */
import type { HarmonyHeader } from './header.js';
import { CALL, RETURN } from './tokens.js';

export const HARMONY_STOP_TOKENS = [RETURN, CALL] as const;

/** Ids of `<|return|>` and `<|call|>` in this tokenizer; throws if it is not a Harmony tokenizer. */
export function harmonyStopTokenIds(tokenizer: { tokenToId(token: string): number | undefined }): number[] {
  return HARMONY_STOP_TOKENS.map((token) => {
    const id = tokenizer.tokenToId(token);
    if (id === undefined) throw new Error(`tokenizer has no ${token} token; it cannot serve a Harmony (gpt-oss) model`);
    return id;
  });
}

/** Whether user stop strings apply to the content of a message with this header. */
export function isStopStringTarget(header: Pick<HarmonyHeader, 'channel' | 'recipient'>): boolean {
  return header.channel === 'final' && header.recipient === undefined;
}

/**
 * What the channel parser runs final-channel text through; `StopStringMatcher` fits. `push`
 * returns the text safe to emit; once `stopped`, the parser ignores everything after.
 */
export interface HarmonyStopFilter {
  push(text: string): { text: string; stopped: boolean };
  flush(): string;
}
