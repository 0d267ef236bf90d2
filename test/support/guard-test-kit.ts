/**
 * Wrong values by JSON type for the wire-guard tests, each with the words the refusal must use,
 * plus deep-JSON builders and a seeded PRNG for the randomized "engine accepts what is sent" runs.
 */

/** [case name, value, text the refusal must contain]. */
export type Wrong = [string, unknown, string];

/** For float fields: `expected a finite number, got <text>`. */
export const FLOAT_WRONG: Wrong[] = [
  ['string', '1', 'string'],
  ['boolean', true, 'boolean'],
  ['null', null, 'null'],
  ['undefined', undefined, 'undefined'],
  ['array', [1], 'array'],
  ['object', { v: 1 }, 'object'],
  ['NaN', Number.NaN, 'NaN'],
  ['Infinity', Infinity, 'Infinity'],
  ['-Infinity', -Infinity, '-Infinity'],
  ['bigint', 2n, 'bigint'],
];

/** For int fields: `expected a whole number (safe integer), got <text>`. */
export const INT_WRONG: Wrong[] = [
  ['string', '1', 'string'],
  ['boolean', false, 'boolean'],
  ['null', null, 'null'],
  ['undefined', undefined, 'undefined'],
  ['array', [1], 'array'],
  ['object', {}, 'object'],
  ['NaN', Number.NaN, 'NaN'],
  ['Infinity', Infinity, 'Infinity'],
  ['fraction', 1.5, '1.5'],
  ['negative fraction', -0.5, '-0.5'],
  ['beyond 2^53', 2 ** 53, String(2 ** 53)],
  ['bigint', 1n, 'bigint'],
  ['symbol', Symbol('n'), 'symbol'],
];

/** For bool fields: `expected a boolean, got <text>`. */
export const BOOL_WRONG: Wrong[] = [
  ['number 1', 1, 'number'],
  ['number 0', 0, 'number'],
  ['string', 'true', 'string'],
  ['null', null, 'null'],
  ['undefined', undefined, 'undefined'],
  ['array', [true], 'array'],
  ['object', {}, 'object'],
];

/** For non-empty string fields: the whole problem text. */
export const STRING_WRONG: Wrong[] = [
  ['number', 5, 'expected a string, got number'],
  ['boolean', true, 'expected a string, got boolean'],
  ['null', null, 'expected a string, got null'],
  ['undefined', undefined, 'expected a string, got undefined'],
  ['array', ['a'], 'expected a string, got array'],
  ['object', {}, 'expected a string, got object'],
  ['symbol', Symbol('s'), 'expected a string, got symbol'],
  ['empty', '', 'must not be an empty string'],
];

/** For token-id list fields: `expected a list of token ids, got <text>`. */
export const TOKEN_LIST_WRONG: Wrong[] = [
  ['number', 5, 'number'],
  ['string', '1,2', 'string'],
  ['null', null, 'null'],
  ['undefined', undefined, 'undefined'],
  ['object', { 0: 1 }, 'object'],
  ['boolean', true, 'boolean'],
  ['Set', new Set([1]), 'Set object'],
];

/** For one token id: the whole problem text. */
export const TOKEN_ID_WRONG: Wrong[] = [
  ['string', '1', 'expected a token id (whole number), got string'],
  ['fraction', 1.5, 'expected a token id (whole number), got 1.5'],
  ['negative', -1, 'token id must not be negative, got -1'],
  ['2^31', 2 ** 31, 'token id must be below 2^31, got 2147483648'],
  ['NaN', Number.NaN, 'got NaN'],
  ['Infinity', Infinity, 'got Infinity'],
  ['boolean', true, 'got boolean'],
  ['array', [1], 'got array'],
  ['object', {}, 'got object'],
  ['null', null, 'got null'],
  ['bigint', 1n, 'got bigint'],
  ['symbol', Symbol('id'), 'got symbol'],
];

/** An object nested `depth` containers deep (depth 1 = a flat object). */
export function deepObject(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < depth; i++) v = { type: 'object', properties: undefined, items: v };
  return JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
}

export function deepObjectText(depth: number): string {
  return JSON.stringify(deepObject(depth));
}

/** Nested arrays: valid JSON, but not an object, so vLLM gets it as a str. */
export function deepArrayText(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** Small seeded PRNG (mulberry32): the randomized tests replay the same sequence every run. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
