/**
 * The EOS set a TokenSpeed engine stops on by itself (wire-tokenspeed §8): the union of
 * config.json and generation_config.json `eos_token_id` (int or list), the tokenizer's eos token,
 * and `<|eom_id|>` when the tokenizer has it. The gateway sends none of these, so a fake engine
 * that ignored the model dir would run every request to its length limit.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface EngineEos {
  /** In discovery order; the first one is what scripted generation emits at the end. */
  ids: number[];
  /** Where the ids came from, for the startup log line. */
  source: string;
}

function readJson(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    // A corrupt file contributes nothing, like a missing one.
    return null;
  }
}

function idsOf(v: unknown): number[] {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return [v];
  if (Array.isArray(v)) return v.filter((x): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0);
  return [];
}

/** Special tokens of tokenizer.json by content (added_tokens), falling back to the model vocab. */
function tokenIdLookup(dir: string): (content: string) => number | null {
  const tok = readJson(join(dir, 'tokenizer.json'));
  const added = new Map<string, number>();
  const list = tok?.added_tokens;
  if (Array.isArray(list)) {
    for (const t of list as { id?: unknown; content?: unknown }[]) {
      if (typeof t.content === 'string' && typeof t.id === 'number') added.set(t.content, t.id);
    }
  }
  const vocab = (tok?.model as { vocab?: unknown } | undefined)?.vocab;
  return (content) => {
    const hit = added.get(content);
    if (hit !== undefined) return hit;
    if (vocab && typeof vocab === 'object' && !Array.isArray(vocab)) {
      const v = (vocab as Record<string, unknown>)[content];
      if (typeof v === 'number') return v;
    }
    return null;
  };
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function engineEosIds(model: string, override: number[] | null): EngineEos {
  if (override !== null) return { ids: [...new Set(override)], source: '--mock-eos-token-ids' };
  if (!isDir(model)) return { ids: [], source: 'none (model is not a local directory)' };
  const ids: number[] = [];
  const add = (xs: number[]) => {
    for (const x of xs) if (!ids.includes(x)) ids.push(x);
  };
  add(idsOf(readJson(join(model, 'config.json'))?.eos_token_id));
  add(idsOf(readJson(join(model, 'generation_config.json'))?.eos_token_id));
  const lookup = tokenIdLookup(model);
  const eosTok = readJson(join(model, 'tokenizer_config.json'))?.eos_token;
  const eosContent = typeof eosTok === 'string' ? eosTok : (eosTok as { content?: unknown } | null | undefined)?.content;
  if (typeof eosContent === 'string') {
    const id = lookup(eosContent);
    if (id !== null) add([id]);
  }
  const eom = lookup('<|eom_id|>');
  if (eom !== null) add([eom]);
  return { ids, source: ids.length > 0 ? model : `none found in ${model}` };
}
