/**
 * Nemotron Nano / Super / Nemotron-3 reasoning parser (SMG crates/reasoning_parser/src/parsers/nano_v3.rs
 * @ f8daa88). The Nemotron template has an `enable_thinking` switch: on, it pre-fills `<think>\n`
 * (which arms the parser, §4.4); off, it pre-fills `<think></think>` and the output is content.
 * See https://huggingface.co/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8 (chat template).
 */
import { THINK_TAGS, thinkBlockSpec } from '../think-block.js';

export const nanoV3 = thinkBlockSpec('nano_v3', THINK_TAGS, false);
