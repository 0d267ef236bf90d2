/**
 * Kimi reasoning parsers with a single start/end pair (SMG crates/reasoning_parser/src/parsers/kimi.rs
 * and the kimi_thinking / kimi_k25 entries of factory.rs @ f8daa88). Kimi K3 is in kimi-k3.ts.
 *
 * - kimi (Kimi-VL-Thinking, Kimi-Dev and other pre-K2-Thinking checkpoints): Unicode markers
 *   `◁think▷` / `◁/think▷`, written by the model; not in reasoning until the start marker.
 * - kimi_thinking (moonshotai/Kimi-K2-Thinking): `<think>` / `</think>`, starts in reasoning.
 * - kimi_k25 (moonshotai/Kimi-K2.5): `<think>` / `</think>`, armed by the template's switch.
 */
import { THINK_TAGS, thinkBlockSpec } from '../think-block.js';

export const kimi = thinkBlockSpec('kimi', { start: '◁think▷', end: '◁/think▷' }, false);
export const kimiThinking = thinkBlockSpec('kimi_thinking', THINK_TAGS, true);
export const kimiK25 = thinkBlockSpec('kimi_k25', THINK_TAGS, false);
