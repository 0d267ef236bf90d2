/**
 * Qwen reasoning parsers (SMG crates/reasoning_parser/src/parsers/qwen3.rs @ f8daa88).
 *
 * - qwen3 (hybrid models, e.g. Qwen/Qwen3-8B): the model writes `<think>\n…\n</think>\n\n` itself
 *   when thinking is on (the default, which arms the parser, §4.4); with `enable_thinking: false`
 *   the template pre-fills an empty `<think>\n\n</think>\n\n` and the output is plain content.
 * - qwen3_thinking (e.g. Qwen/Qwen3-235B-A22B-Thinking-2507): the template pre-fills `<think>\n`,
 *   so the output starts in reasoning and carries only `</think>`.
 */
import { THINK_TAGS, thinkBlockSpec } from '../think-block.js';

export const qwen3 = thinkBlockSpec('qwen3', THINK_TAGS, false);
export const qwen3Thinking = thinkBlockSpec('qwen3_thinking', THINK_TAGS, true);
