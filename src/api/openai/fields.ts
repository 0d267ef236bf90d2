import { invalid, jsonParseError } from '../../pipeline/errors.js';

/**
 * Small readers for untyped JSON bodies. Each returns the typed value or undefined when absent
 * (null counts as absent, as OpenAI clients send explicit nulls), and throws a 400 otherwise.
 * `path` is the field's name in messages and `param` when it is nested (`text.format`).
 */
export type Body = Record<string, unknown>;

export function asBody(raw: unknown): Body {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw jsonParseError('Invalid JSON data: request body must be a JSON object');
  }
  return raw as Body;
}

export function optNumber(
  body: Body,
  key: string,
  range?: { min?: number; max?: number; minExclusive?: boolean; integer?: boolean; message?: string },
  path = key,
): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`${path}: must be a number`, path);
  if (range?.integer && !Number.isInteger(v)) throw invalid(`${path}: must be an integer`, path);
  const lo = range?.min;
  const hi = range?.max;
  const below = lo !== undefined && (range?.minExclusive ? v <= lo : v < lo);
  const above = hi !== undefined && v > hi;
  if (below || above) {
    if (range?.message) throw invalid(range.message, path);
    const left = lo === undefined ? '(-inf' : range?.minExclusive ? `(${lo}` : `[${lo}`;
    const right = hi === undefined ? 'inf)' : `${hi}]`;
    throw invalid(`${path}: must be in ${left}, ${right}, got ${v}`, path);
  }
  return v;
}

export function optBool(body: Body, key: string, path = key): boolean | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalid(`${path}: must be a boolean`, path);
  return v;
}

export function optString(body: Body, key: string, path = key): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`${path}: must be a string`, path);
  return v;
}

export function optObject(body: Body, key: string, path = key): Body | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(`${path}: must be an object`, path);
  return v as Body;
}

/** Token ids: non-negative safe integers. */
export function optTokenIds(body: Body, key: string): number[] | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => Number.isSafeInteger(x) && (x as number) >= 0)) {
    throw invalid(`${key}: must be an array of non-negative integer token ids`);
  }
  return v as number[];
}

/** `stop`: a string or up to 4 non-empty strings. */
export function optStops(body: Body): string[] {
  const v = body.stop;
  if (v === undefined || v === null) return [];
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) {
    throw invalid('stop: must be a string or an array of strings');
  }
  if (list.some((s) => s.length === 0)) throw invalid('stop sequences cannot be empty', 'stop');
  if (list.length > 4) throw invalid('maximum 4 stop sequences allowed', 'stop');
  return list as string[];
}

/**
 * `logit_bias`: token id (string key in JSON) → bias in [-100, 100], the range OpenAI documents
 * and refuses outside of (https://platform.openai.com/docs/api-reference/chat/create#chat-create-logit_bias).
 */
export function optLogitBias(body: Body): Map<number, number> | null {
  const v = body.logit_bias;
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid('logit_bias: must be an object');
  const out = new Map<number, number>();
  for (const [k, bias] of Object.entries(v as Body)) {
    const id = Number(k);
    if (!/^\d+$/.test(k) || !Number.isSafeInteger(id)) throw invalid(`logit_bias: key '${k}' is not a token id`);
    if (typeof bias !== 'number' || !Number.isFinite(bias)) throw invalid(`logit_bias: value for '${k}' must be a number`);
    if (bias < -100 || bias > 100) throw invalid(`logit_bias: value for '${k}' must be in [-100, 100], got ${bias}`);
    out.set(id, bias);
  }
  return out.size > 0 ? out : null;
}
