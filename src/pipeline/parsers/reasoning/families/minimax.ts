/**
 * MiniMax-M2 reasoning parser (SMG crates/reasoning_parser/src/parsers/minimax.rs @ f8daa88): the
 * MiniMax-M2 template injects `<think>` into the generation prompt, so the output starts inside
 * reasoning and closes it with `</think>`.
 */
import { THINK_TAGS, thinkBlockSpec } from '../think-block.js';

export const minimax = thinkBlockSpec('minimax', THINK_TAGS, true);
