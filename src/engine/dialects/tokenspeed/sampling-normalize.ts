/**
 * Gateway side: SamplingSpec → the normalized SamplingParams SMG sends (request-pipeline §5.5,
 * wire-tokenspeed §4.3–4.7). We always send `is_normalized = true`, so the engine re-derives
 * nothing: every rule it would apply on its own has to happen here.
 */
import type { SamplingSpec, StructuredConstraint } from '../../types.js';
import { defaultSamplingParams, type TsSamplingParams } from './sampling-layout.js';
import { GREEDY_TEMPERATURE_EPS, TOP_K_ALL } from './wire-constants.js';

type GrammarSlots = Pick<TsSamplingParams, 'jsonSchema' | 'regex' | 'ebnf' | 'structuralTag'>;

export function toTokenSpeedSampling(spec: SamplingSpec): TsSamplingParams {
  const sp = defaultSamplingParams();
  sp.maxNewTokens = spec.maxTokens;
  sp.stopTokenIds = dedupe(spec.stopTokenIds);
  sp.temperature = spec.temperature;
  sp.topP = spec.topP;
  // The seam says 0 or −1 = disabled; TokenSpeed rejects 0, and −1 normalizes to TOP_K_ALL below.
  sp.topK = spec.topK === 0 ? -1 : spec.topK;
  sp.minP = spec.minP;
  sp.frequencyPenalty = spec.frequencyPenalty;
  sp.presencePenalty = spec.presencePenalty;
  sp.repetitionPenalty = spec.repetitionPenalty;
  sp.minNewTokens = spec.minTokens;
  Object.assign(sp, grammarSlots(spec.structured));
  sp.ignoreEos = spec.ignoreEos;
  sp.skipSpecialTokens = spec.skipSpecialTokens;
  // The engine accepts a bias map; whether to offer it is the pipeline's call (SMG never does).
  sp.logitBias = spec.logitBias && spec.logitBias.size > 0 ? biasMap(spec.logitBias) : null;
  // Null lets the engine derive crc32(rid), which is deterministic per rid (§4.6).
  sp.seed = spec.seed;
  // Slot 24 is not the logprob switch on this wire (return_logprob is); only nil/0 are legal.
  sp.logprobs = null;
  sp.n = 1;
  return normalizeTokenSpeedSampling(sp);
}

/**
 * The engine's own post-init rules (§4.3.1), applied in place and idempotent. Exported so the
 * fake engine can run the identical normalization on raw (`is_normalized = false`) requests.
 */
export function normalizeTokenSpeedSampling(sp: TsSamplingParams): TsSamplingParams {
  if (sp.isNormalized) return sp;
  if (sp.stopTokenIds !== null && sp.stopTokenIds.length === 0) sp.stopTokenIds = null;
  if (sp.temperature < GREEDY_TEMPERATURE_EPS) {
    // A zero temperature would divide by zero in the kernels; greedy is top_k 1 instead.
    sp.temperature = 1.0;
    sp.topK = 1;
  }
  if (sp.topK === -1) sp.topK = TOP_K_ALL;
  const stops = sp.stop === null ? [] : typeof sp.stop === 'string' ? [sp.stop] : sp.stop;
  sp.stopStrs = [...stops];
  // Without a tokenizer the engine measures stop strings in characters (code points).
  sp.stopStrMaxLen = stops.reduce((m, s) => Math.max(m, [...s].length), 0);
  sp.isNormalized = true;
  return sp;
}

/**
 * TokenSpeed has four grammar string slots and no json_object/choice kinds (§4.4), so those are
 * translated the way SMG does: json_object → schema {"type":"object"}, choice → regex alternation.
 */
export function grammarSlots(c: StructuredConstraint | null): GrammarSlots {
  const slots: GrammarSlots = { jsonSchema: null, regex: null, ebnf: null, structuralTag: null };
  if (c === null) return slots;
  switch (c.kind) {
    case 'json_schema':
      slots.jsonSchema = typeof c.schema === 'string' ? c.schema : JSON.stringify(c.schema);
      break;
    case 'json_object':
      slots.jsonSchema = '{"type":"object"}';
      break;
    case 'regex':
      slots.regex = c.pattern;
      break;
    case 'grammar':
      slots.ebnf = c.grammar;
      break;
    case 'choice':
      slots.regex = choiceRegex(c.choices);
      break;
    case 'structural_tag':
      slots.structuralTag = c.tag;
      break;
  }
  return slots;
}

/** Literal alternation; each choice is escaped so it matches only itself. */
export function choiceRegex(choices: string[]): string {
  return `(${choices.map((s) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')).join('|')})`;
}

function dedupe(ids: number[]): number[] | null {
  if (ids.length === 0) return null;
  return [...new Set(ids)];
}

function biasMap(bias: Map<number, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [id, v] of bias) out[String(id)] = v;
  return out;
}
