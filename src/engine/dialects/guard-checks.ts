/**
 * Building blocks of the per-dialect wire guards (`vllm/guard.ts`, `tokenspeed/guard.ts`).
 *
 * Values reach the encoders from JSON bodies and route code, so the TypeScript types promise
 * nothing at runtime: a `number` field can hold a string, NaN or 4.5. Each check here is a typeof
 * test on the happy path; only a failure allocates (the error and its text). Paths name the
 * field as it is called on the wire (`sampling_params.top_p`, `prompt_token_ids[3]`), because
 * that is what a user reading the 400 can map back to the request.
 */
import { WireEncodeError } from '../types.js';

/**
 * A request field the engine would choke on. The message is `<field>: <problem>` unless the
 * caller needs an exact contract text; `field` lets a caller point at the field without parsing.
 */
export class WireFieldError extends WireEncodeError {
  constructor(
    readonly field: string,
    readonly problem: string,
    message = `${field}: ${problem}`,
  ) {
    super(message);
  }
}

export function fail(field: string, problem: string): never {
  throw new WireFieldError(field, problem);
}

/**
 * Deepest container nesting allowed inside a JSON schema. msgspec decodes nested maps with
 * CPython's recursion guard (`Py_EnterRecursiveCall`, limit ≈ 1000), so a deeper schema raises
 * RecursionError on vLLM's input thread and kills it; real schemas stay far below this.
 */
export const MAX_JSON_DEPTH = 128;

/** What a value is, for "expected …, got <this>" (NaN and Infinity are named: they are numbers). */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Number.isFinite(v) ? 'number' : String(v);
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) return 'object';
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name.length > 0 ? `${name} object` : 'object';
  }
  return typeof v;
}

/** The value itself for numbers (so "got 4.5" reads naturally), else its kind. */
function shown(v: unknown): string {
  return typeof v === 'number' ? String(v) : describe(v);
}

export function checkBool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') fail(field, `expected a boolean, got ${describe(v)}`);
  return v;
}

/** A finite JS number (float slots take ints too; NaN and ±Infinity never reach the engine). */
export function checkFinite(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(field, `expected a finite number, got ${shown(v)}`);
  return v;
}

/** An integer the msgpack writer can encode exactly (msgspec refuses floats and bools for int). */
export function checkInt(v: unknown, field: string): number {
  if (typeof v !== 'number') fail(field, `expected a whole number (safe integer), got ${describe(v)}`);
  if (!Number.isSafeInteger(v)) fail(field, `expected a whole number (safe integer), got ${v}`);
  return v;
}

export function checkNullableInt(v: unknown, field: string): number | null {
  return v === null ? null : checkInt(v, field);
}

export function checkString(v: unknown, field: string): string {
  if (typeof v !== 'string') fail(field, `expected a string, got ${describe(v)}`);
  return v;
}

export function checkNonEmptyString(v: unknown, field: string): string {
  if (checkString(v, field).length === 0) fail(field, 'must not be an empty string');
  return v as string;
}

/**
 * Token ids travel into int32 buffers on both engines (vLLM's input batch, TokenSpeed's
 * `input_ids` tensor); a larger id overflows there and takes the engine down. The model's real
 * vocabulary is checked by the pipeline, which knows the tokenizer. The hot test: typeof first
 * (`|` throws on a BigInt or Symbol), then `(x | 0) === x`, which holds exactly for int32 values.
 */
function isTokenId(v: unknown): v is number {
  return typeof v === 'number' && (v | 0) === v && v >= 0;
}

/** One token id: an integer in [0, 2^31). */
export function checkTokenId(v: unknown, field: string): number {
  if (isTokenId(v)) return v;
  if (typeof v !== 'number') fail(field, `expected a token id (whole number), got ${describe(v)}`);
  if (!Number.isInteger(v)) fail(field, `expected a token id (whole number), got ${v}`);
  if (v < 0) fail(field, `token id must not be negative, got ${v}`);
  fail(field, `token id must be below 2^31, got ${v}`);
}

export function checkNullableTokenId(v: unknown, field: string): number | null {
  return v === null ? null : checkTokenId(v, field);
}

/** An array of token ids; the per-element path is only built when an element fails. */
export function checkTokenIds(v: unknown, field: string, nonEmpty = false): readonly number[] {
  if (!Array.isArray(v)) fail(field, `expected a list of token ids, got ${describe(v)}`);
  if (nonEmpty && v.length === 0) fail(field, 'must not be empty');
  for (let i = 0; i < v.length; i++) {
    if (!isTokenId(v[i])) checkTokenId(v[i], `${field}[${i}]`);
  }
  return v as readonly number[];
}

export function checkStrings(v: unknown, field: string, nonEmpty = false): readonly string[] {
  if (!Array.isArray(v)) fail(field, `expected a list of strings, got ${describe(v)}`);
  if (nonEmpty && v.length === 0) fail(field, 'must not be empty');
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') checkString(v[i], `${field}[${i}]`);
  return v as readonly string[];
}

/** `logit_bias` on the seam: a Map of token id → bias (a JSON object would lose the int keys). */
export function checkBiasMap(v: unknown, field: string, finiteOnly: boolean): ReadonlyMap<number, number> {
  if (!(v instanceof Map)) fail(field, `expected a Map of token id to bias, got ${describe(v)}`);
  for (const [id, bias] of v as Map<unknown, unknown>) {
    checkTokenId(id, `${field} key`);
    if (typeof bias !== 'number' || Number.isNaN(bias) || (finiteOnly && !Number.isFinite(bias))) {
      fail(`${field}[${id as number}]`, `expected a ${finiteOnly ? 'finite ' : ''}number, got ${shown(bias)}`);
    }
  }
  return v as ReadonlyMap<number, number>;
}

/**
 * A JSON schema as the seam carries it: its JSON text, or a JSON object. Anything else (a number,
 * an array, null, a Map) is not a schema; vLLM's typed decoder (`json: str | dict`) would refuse it
 * and die, and TokenSpeed would get the text of something that is not a schema.
 */
export function checkJsonSchema(v: unknown, field: string): void {
  if (typeof v === 'string') return;
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !isPlainObject(v)) {
    fail(field, `expected a JSON schema object or string, got ${describe(v)}`);
  }
  const problem = jsonValueProblem(v, 1);
  if (problem !== null) fail(problem.at === '' ? field : `${field}${problem.at}`, problem.problem);
}

/**
 * Container nesting of a JSON text, stopping early once past `limit` (a plain scan that skips
 * string literals; on invalid JSON the number is meaningless, which callers must allow for).
 */
export function jsonTextDepth(s: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped char
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return max;
}

/** A value quoted for an error text; never throws (JSON.stringify does on BigInt). */
export function quoted(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : describe(v);
}

export function tooDeep(): string {
  return `JSON nesting deeper than ${MAX_JSON_DEPTH} levels`;
}

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

interface JsonProblem {
  /** Path suffix below the checked value (`.properties.a`, `[2]`), '' for the value itself. */
  at: string;
  problem: string;
  /** Too deep: reported at the schema itself, since the path would be the whole nesting. */
  deep?: true;
}

/**
 * First reason `v` is not plain JSON (what JSON.parse could have produced), or null. undefined is
 * tolerated: both encoders turn it into null/omission. The path is assembled while unwinding, so
 * a valid schema costs no allocation.
 */
function jsonValueProblem(v: unknown, depth: number): JsonProblem | null {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return null;
    case 'number':
      return Number.isFinite(v) ? null : { at: '', problem: `expected a finite number, got ${v}` };
    case 'object':
      break;
    default:
      return { at: '', problem: `not a JSON value: ${describe(v)}` };
  }
  if (v === null) return null;
  if (depth > MAX_JSON_DEPTH) return { at: '', problem: tooDeep(), deep: true };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = jsonValueProblem(v[i], depth + 1);
      if (p !== null) return p.deep ? p : { at: `[${i}]${p.at}`, problem: p.problem };
    }
    return null;
  }
  if (!isPlainObject(v)) return { at: '', problem: `not a JSON value: ${describe(v)}` };
  const rec = v as Record<string, unknown>;
  // Plain objects inherit no enumerable keys, so for…in walks own keys without an Object.keys array.
  for (const k in rec) {
    const p = jsonValueProblem(rec[k], depth + 1);
    if (p !== null) return p.deep ? p : { at: `${keySegment(k)}${p.at}`, problem: p.problem };
  }
  return null;
}

function keySegment(k: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
}
