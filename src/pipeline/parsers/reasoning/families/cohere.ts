/**
 * Cohere Command reasoning parser (SMG crates/reasoning_parser/src/parsers/cohere_cmd.rs @ f8daa88):
 * Command R7B / Command A Reasoning write `<|START_THINKING|>…<|END_THINKING|>` before the answer
 * (which they wrap in `<|START_RESPONSE|>…<|END_RESPONSE|>`, or follow with an
 * `<|START_ACTION|>` tool block). Only the thinking pair is separated here; the response and
 * action markers are left for the tool parser and the content, as SMG does.
 */
import { thinkBlockSpec } from '../think-block.js';

export const cohereCmd = thinkBlockSpec('cohere_cmd', { start: '<|START_THINKING|>', end: '<|END_THINKING|>' }, false);
