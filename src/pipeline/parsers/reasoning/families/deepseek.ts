/**
 * DeepSeek reasoning parsers (SMG crates/reasoning_parser/src/parsers/deepseek_r1.rs and the
 * deepseek_v31 / deepseek_v4 entries of factory.rs @ f8daa88).
 *
 * - deepseek_r1 starts in reasoning: the R1 chat template (deepseek-ai/DeepSeek-R1,
 *   tokenizer_config.json) ends the generation prompt with `<｜Assistant｜><think>\n`, so the output
 *   begins inside the block and only `</think>` appears. Older R1 outputs that still write
 *   `<think>` themselves have it dropped (see ThinkBlockParser).
 * - deepseek_v31 and deepseek_v4 start outside reasoning: their templates take a `thinking`
 *   switch and pre-fill `<think>` only when it is on, which arms the parser (§4.4).
 */
import { THINK_TAGS, thinkBlockSpec } from '../think-block.js';

export const deepseekR1 = thinkBlockSpec('deepseek_r1', THINK_TAGS, true);
export const deepseekV31 = thinkBlockSpec('deepseek_v31', THINK_TAGS, false);
export const deepseekV4 = thinkBlockSpec('deepseek_v4', THINK_TAGS, false);
