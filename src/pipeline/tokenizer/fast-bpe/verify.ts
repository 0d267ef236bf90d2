/**
 * The fast encoder is trusted only once it reproduces the reference encoder on the parity probes
 * (probe-texts.ts): the loader refuses every option it does not implement, and this catches
 * anything that slips through (a tokenizer_config.json option the JS library reads, say).
 */
import type { FastBpeEncoder } from './encoder.js';
import { buildFastBpeEncoder } from './load.js';
import { PARITY_SAMPLES, specialTokenProbe } from './probe-texts.js';

export type EncodeIds = (text: string) => number[];

export function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The first probe `encode` gets wrong, or null when it reproduces them all. */
export function firstMismatch(encode: EncodeIds, probes: ReadonlyArray<{ text: string; ids: readonly number[] }>): string | null {
  for (const probe of probes) if (!sameIds(encode(probe.text), probe.ids)) return probe.text;
  return null;
}

/** The probe texts for a tokenizer with these added tokens. */
export function probeTexts(addedTokens: Iterable<string>): string[] {
  const texts = [...PARITY_SAMPLES];
  for (const token of addedTokens) texts.push(specialTokenProbe(token));
  return texts;
}

/**
 * A fast encoder for this tokenizer.json that encodes every probe as `reference` does (the JS
 * library with add_special_tokens = false), or why there is none.
 */
export function verifiedFastEncoder(
  tokenizerJson: unknown,
  tokenizerConfig: Record<string, unknown> | null,
  reference: EncodeIds,
  addedTokens: Iterable<string>,
): { encoder: FastBpeEncoder } | { refused: string } {
  const built = buildFastBpeEncoder(tokenizerJson, tokenizerConfig);
  if ('refused' in built) return built;
  const probes = probeTexts(addedTokens).map((text) => ({ text, ids: reference(text) }));
  const wrong = firstMismatch((t) => built.encoder.encode(t), probes);
  if (wrong !== null) return { refused: `it encodes ${JSON.stringify(wrong.slice(0, 80))} differently from the JS library` };
  return built;
}
