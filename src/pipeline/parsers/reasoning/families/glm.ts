/**
 * GLM-4.5 / 4.7 / 5 reasoning parser (SMG crates/reasoning_parser/src/parsers/glm45.rs @ f8daa88):
 * `<think>…</think>` written by the model, not in reasoning until the start tag.
 */
import { THINK_TAGS, thinkBlockSpec } from '../think-block.js';

export const glm45 = thinkBlockSpec('glm45', THINK_TAGS, false);
