/**
 * msgspec-strict type checks over typed msgpack values (engine side, for fake engines).
 * msgspec's rules (spec wire-vllm §4.2): int is accepted where float is declared; float is not
 * accepted for int; bool is not an int; bin is not a str. Messages imitate msgspec's
 * ("Expected `int`, got `float` - at `$[1][0]`") so test failures read like the real engine's log.
 */
import { msgspecTypeName, type TypedValue } from '../typed-reader.js';

/** A value the engine would refuse while decoding or validating. */
export class StrictDecodeError extends Error {
  override name = 'StrictDecodeError';
}

export function fail(message: string): never {
  throw new StrictDecodeError(message);
}

function mismatch(want: string, v: TypedValue, path: string): never {
  fail(`Expected \`${want}\`, got \`${msgspecTypeName(v)}\` - at \`${path}\``);
}

export function expectInt(v: TypedValue, path: string): number {
  if (v.t !== 'int') mismatch('int', v, path);
  return typeof v.v === 'bigint' ? Number(v.v) : v.v;
}

export function expectFloat(v: TypedValue, path: string): number {
  if (v.t === 'float') return v.v;
  if (v.t === 'int') return typeof v.v === 'bigint' ? Number(v.v) : v.v;
  mismatch('float', v, path);
}

export function expectBool(v: TypedValue, path: string): boolean {
  if (v.t !== 'bool') mismatch('bool', v, path);
  return v.v;
}

export function expectStr(v: TypedValue, path: string): string {
  if (v.t !== 'str') mismatch('str', v, path);
  return v.v;
}

export function expectArray(v: TypedValue, path: string): TypedValue[] {
  if (v.t !== 'array') mismatch('array', v, path);
  return v.v;
}

export function expectMapEntries(v: TypedValue, path: string): Array<[TypedValue, TypedValue]> {
  if (v.t !== 'map') mismatch('object', v, path);
  return v.v;
}

export function expectIntArray(v: TypedValue, path: string): number[] {
  if (v.t === 'array' && v.uints) return v.uints.slice();
  const items = expectArray(v, path);
  const out = new Array<number>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    // The element's path only for the error: built for each of a 131k-token prompt's ids, the
    // strings took ~15 ms of the mock engine's loop per long ADD, stalling every stream it steps.
    if (item.t === 'int' && typeof item.v === 'number') out[i] = item.v;
    else out[i] = expectInt(item, `${path}[${i}]`);
  }
  return out;
}

export function expectStrArray(v: TypedValue, path: string): string[] {
  const items = expectArray(v, path);
  return items.map((item, i) => expectStr(item, `${path}[${i}]`));
}

/** `read(v)` unless v is nil (or absent), else null — msgspec's `T | None`. */
export function nullable<T>(v: TypedValue | undefined, path: string, read: (v: TypedValue, path: string) => T): T | null {
  return v === undefined || v.t === 'nil' ? null : read(v, path);
}

/**
 * A map decoded as a struct/dataclass: keys must be str (anything else is a decode error);
 * unknown keys are the caller's to ignore; a repeated key keeps its last value.
 */
export function structFields(v: TypedValue, path: string): Map<string, TypedValue> {
  const entries = expectMapEntries(v, path);
  const out = new Map<string, TypedValue>();
  for (const [k, item] of entries) {
    if (k.t !== 'str') fail(`Expected \`str\`, got \`${msgspecTypeName(k)}\` - at \`key\` in \`${path}\``);
    out.set(k.v, item);
  }
  return out;
}
