/**
 * Per-model parser overrides carried by workers (request-pipeline §11.1): a worker's labels
 * (`tool_parser`, `reasoning_parser`) or the model card for the model (`models: [{id, …}]`).
 * When workers of one model disagree, the lexicographically smallest name wins, as in SMG, so the
 * choice does not depend on registration order.
 */
import type { WorkerSpec } from './types.js';

export interface CardParsers {
  tool: string | null;
  reasoning: string | null;
}

function cardValue(spec: WorkerSpec, model: string, key: 'tool_parser' | 'reasoning_parser'): string | null {
  const label = spec.labels[key];
  if (typeof label === 'string' && label !== '') return label;
  for (const card of spec.models) {
    const v = card[key];
    if (card.id === model && typeof v === 'string' && v !== '') return v;
  }
  return null;
}

const smallest = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a < b ? a : b);

export function cardParsers(workers: Iterable<{ modelId: string; identity: { spec: WorkerSpec } }>, model: string): CardParsers {
  let tool: string | null = null;
  let reasoning: string | null = null;
  for (const w of workers) {
    if (w.modelId !== model) continue;
    tool = smallest(tool, cardValue(w.identity.spec, model, 'tool_parser'));
    reasoning = smallest(reasoning, cardValue(w.identity.spec, model, 'reasoning_parser'));
  }
  return { tool, reasoning };
}
