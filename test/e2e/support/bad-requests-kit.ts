/**
 * Building blocks of the malformed-request tables (bad-requests-*.ts): a mutation is a field set
 * to a wrong value (or removed with DROP) on a valid base body.
 */

/** Marks a field to delete. */
export const DROP = Symbol('drop');

export type Patch = Record<string, unknown>;

export interface Mutation {
  name: string;
  patch: Patch;
  status?: number;
  code?: string;
  param?: string;
  only?: 'vllm' | 'tokenspeed';
}

/** Sets `path` (dot-separated, numeric segments index arrays) on a deep copy of `base`. */
export function apply(base: unknown, patch: Patch): unknown {
  const out = structuredClone(base) as Record<string, unknown>;
  for (const [path, value] of Object.entries(patch)) {
    const keys = path.split('.');
    let at: Record<string, unknown> = out;
    for (const k of keys.slice(0, -1)) {
      if (typeof at[k] !== 'object' || at[k] === null) at[k] = {};
      at = at[k] as Record<string, unknown>;
    }
    const last = keys[keys.length - 1];
    if (value === DROP) delete at[last];
    else at[last] = value;
  }
  return out;
}

export const m = (name: string, patch: Patch, extra: Omit<Mutation, 'name' | 'patch'> = {}): Mutation => ({ name, patch, ...extra });

/** About 2000 tokens: past the corpus engines' 512-token context. */
export const LONG_TEXT = 'lorem ipsum dolor sit amet '.repeat(400);

export const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
