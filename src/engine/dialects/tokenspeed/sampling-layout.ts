/**
 * The 29 positional SamplingParams slots (§4.3) as one table, so the gateway encoder and the
 * fake engine's strict decoder cannot disagree on order, slot types or defaults.
 */

/** SamplingParams with engine names, one property per wire slot. */
export interface TsSamplingParams {
  maxNewTokens: number | null;
  /** API alias for stop strings; the engine only reads it when `isNormalized` is false. */
  stop: string | string[] | null;
  stopTokenIds: number[] | null;
  temperature: number;
  topP: number;
  topK: number;
  minP: number;
  frequencyPenalty: number;
  presencePenalty: number;
  repetitionPenalty: number;
  minNewTokens: number;
  jsonSchema: string | null;
  regex: string | null;
  ebnf: string | null;
  structuralTag: string | null;
  ignoreEos: boolean;
  skipSpecialTokens: boolean;
  spacesBetweenSpecialTokens: boolean;
  noStopTrim: boolean;
  thinkingBudget: number | null;
  customParams: Record<string, unknown> | null;
  streamInterval: number | null;
  /** Keys are decimal token-id strings, as the engine expects them. */
  logitBias: Record<string, number> | null;
  seed: number | null;
  logprobs: number | null;
  n: number;
  stopStrs: string | string[] | null;
  stopStrMaxLen: number;
  isNormalized: boolean;
}

/**
 * msgspec type classes of the slots. `float` slots accept integers on decode but are always
 * written as float64 so our bytes match the Python encoder's (§11 byte-level notes).
 */
export type SlotKind =
  | 'int'
  | 'int?'
  | 'float'
  | 'bool'
  | 'str?'
  | 'int[]?'
  | 'str|str[]?'
  | 'map?'
  | 'floatmap?';

export interface SlotDef {
  key: keyof TsSamplingParams;
  kind: SlotKind;
  default: TsSamplingParams[keyof TsSamplingParams];
}

/** Declaration order is the wire order; TokenSpeed only ever appends. */
export const SAMPLING_LAYOUT: readonly SlotDef[] = [
  { key: 'maxNewTokens', kind: 'int?', default: null },
  { key: 'stop', kind: 'str|str[]?', default: null },
  { key: 'stopTokenIds', kind: 'int[]?', default: null },
  { key: 'temperature', kind: 'float', default: 1.0 },
  { key: 'topP', kind: 'float', default: 1.0 },
  { key: 'topK', kind: 'int', default: -1 },
  { key: 'minP', kind: 'float', default: 0.0 },
  { key: 'frequencyPenalty', kind: 'float', default: 0.0 },
  { key: 'presencePenalty', kind: 'float', default: 0.0 },
  { key: 'repetitionPenalty', kind: 'float', default: 1.0 },
  { key: 'minNewTokens', kind: 'int', default: 0 },
  { key: 'jsonSchema', kind: 'str?', default: null },
  { key: 'regex', kind: 'str?', default: null },
  { key: 'ebnf', kind: 'str?', default: null },
  { key: 'structuralTag', kind: 'str?', default: null },
  { key: 'ignoreEos', kind: 'bool', default: false },
  { key: 'skipSpecialTokens', kind: 'bool', default: true },
  { key: 'spacesBetweenSpecialTokens', kind: 'bool', default: true },
  { key: 'noStopTrim', kind: 'bool', default: false },
  { key: 'thinkingBudget', kind: 'int?', default: null },
  { key: 'customParams', kind: 'map?', default: null },
  { key: 'streamInterval', kind: 'int?', default: null },
  { key: 'logitBias', kind: 'floatmap?', default: null },
  { key: 'seed', kind: 'int?', default: null },
  { key: 'logprobs', kind: 'int?', default: null },
  { key: 'n', kind: 'int', default: 1 },
  { key: 'stopStrs', kind: 'str|str[]?', default: null },
  { key: 'stopStrMaxLen', kind: 'int', default: 0 },
  { key: 'isNormalized', kind: 'bool', default: false },
];

/** The class defaults (what the engine assumes for omitted trailing slots). */
export function defaultSamplingParams(): TsSamplingParams {
  const out: Record<string, unknown> = {};
  for (const slot of SAMPLING_LAYOUT) out[slot.key] = slot.default;
  return out as unknown as TsSamplingParams;
}
