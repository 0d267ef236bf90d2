/**
 * msgspec-style slot checks over typed msgpack values (engine side). The real engine drops the
 * whole message on the first mismatch (§4.1), so every helper throws SlotTypeError, which the
 * input decoder turns into a `drop`.
 */
import type { TypedValue } from '../typed-reader.js';
import { msgspecTypeName, toPlain } from '../typed-reader.js';

export class SlotTypeError extends Error {
  override name = 'SlotTypeError';
}

function mismatch(v: TypedValue, expected: string, name: string): SlotTypeError {
  return new SlotTypeError(`Expected \`${expected}\`, got \`${msgspecTypeName(v)}\` - at \`${name}\``);
}

/** Ints only: msgspec rejects `8.0` in an int slot. int64 overflow collapses to a lossy number. */
export function int(v: TypedValue, name: string): number {
  if (v.t !== 'int') throw mismatch(v, 'int', name);
  return Number(v.v);
}

/** Float slots accept ints too (JS encoders write 1.0 as 1). */
export function float(v: TypedValue, name: string): number {
  if (v.t === 'float') return v.v;
  if (v.t === 'int') return Number(v.v);
  throw mismatch(v, 'float', name);
}

/** Bools only: 0/1 integers are rejected. */
export function bool(v: TypedValue, name: string): boolean {
  if (v.t !== 'bool') throw mismatch(v, 'bool', name);
  return v.v;
}

/** str only: msgpack bin is rejected. */
export function str(v: TypedValue, name: string): string {
  if (v.t !== 'str') throw mismatch(v, 'str', name);
  return v.v;
}

export function array(v: TypedValue, name: string): TypedValue[] {
  if (v.t !== 'array') throw mismatch(v, 'array', name);
  return v.v;
}

export function intList(v: TypedValue, name: string): number[] {
  return array(v, name).map((x, i) => int(x, `${name}[${i}]`));
}

export function strList(v: TypedValue, name: string): string[] {
  return array(v, name).map((x, i) => str(x, `${name}[${i}]`));
}

/** Wraps a checker so nil passes as null: the `T | None` slots. */
export function opt<T>(check: (v: TypedValue, name: string) => T): (v: TypedValue, name: string) => T | null {
  return (v, name) => (v.t === 'nil' ? null : check(v, name));
}

/** `str | list[str] | None`, the shape of `stop` and `stop_strs`. */
export function strOrStrList(v: TypedValue, name: string): string | string[] | null {
  if (v.t === 'nil') return null;
  if (v.t === 'str') return v.v;
  if (v.t === 'array') return strList(v, name);
  throw mismatch(v, 'str | array | null', name);
}

/** A free-form map (custom_params): any keys and values, kept as plain JS. */
export function plainMap(v: TypedValue, name: string): Record<string, unknown> {
  if (v.t !== 'map') throw mismatch(v, 'object', name);
  const plain = toPlain(v);
  return plain instanceof Map ? Object.fromEntries(plain) : (plain as Record<string, unknown>);
}

/** `dict[str, float]` (logit_bias). */
export function floatMap(v: TypedValue, name: string): Record<string, number> {
  if (v.t !== 'map') throw mismatch(v, 'object', name);
  const out: Record<string, number> = {};
  for (const [k, x] of v.v) {
    const key = str(k, `${name}.key`);
    Object.defineProperty(out, key, { value: float(x, `${name}[${key}]`), enumerable: true, writable: true });
  }
  return out;
}

/** Anything goes (slots the fake does not model, such as multimodal inputs). */
export function any(v: TypedValue): unknown {
  return toPlain(v);
}
