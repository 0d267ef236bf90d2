/**
 * Step3 reasoning parser (SMG crates/reasoning_parser/src/parsers/step3.rs @ f8daa88): the same
 * `<think>` / `</think>` shape as DeepSeek-R1, starting in reasoning (the template pre-fills the
 * start tag).
 */
import { THINK_TAGS, thinkBlockSpec } from '../think-block.js';

export const step3 = thinkBlockSpec('step3', THINK_TAGS, true);
