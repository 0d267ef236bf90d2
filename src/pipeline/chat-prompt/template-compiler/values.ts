/**
 * How compiled templates hold Python (jinja2) values without boxing most of them:
 *
 *   Undefined → undefined            None → null              bool → boolean
 *   str → string                     list → array             tuple → array tagged TUPLE
 *   int → integral number, or bigint beyond 2^53 (python-json.ts)
 *   float → non-integral number, or FloatBox when integral (`1.0`)
 *   dict → plain object, or PyDict when JS would reorder its keys (integer-like keys)
 *   generator, dict views, range → arrays tagged SEQ       namespace() → Namespace
 *   a function or bound method → (args) => value        keyword arguments → Kwargs (argument only)
 *
 * A number from the context is an int exactly when Number.isInteger says so; the request parser
 * keeps the Python form of JSON numbers it would otherwise lose (python-json.ts).
 */

/** Base of the few boxes, so one `instanceof` tells them from plain objects. */
export abstract class Boxed {}

/** A float-typed number with an integral value: prints `2.0`, is not `integer`. */
export class FloatBox extends Boxed {
  constructor(readonly v: number) {
    super();
  }
}

/** `namespace(...)`: the only value a template may mutate (`set ns.x = ...`). */
export class Namespace extends Boxed {
  constructor(readonly m: Map<string, unknown>) {
    super();
  }
}

/**
 * A dict whose key order a plain object cannot keep (integer-like keys, which JS lists first):
 * what the lossless JSON parse gives for `{"b": 1, "2": 3}`. Read through dictKeys/dictGet.
 */
export class PyDict extends Boxed {
  constructor(readonly m: Map<string, unknown>) {
    super();
  }
}

/** jinja2's `loop` object when read as a whole (`{{ loop }}`, `loop.cycle(...)`): its fields by name. */
export class LoopContext extends Boxed {
  constructor(readonly m: Map<string, unknown>) {
    super();
  }
}

/** Keyword arguments appended to a call's positional ones, as the interpreter does. */
export class Kwargs extends Boxed {
  constructor(readonly m: Map<string, unknown>) {
    super();
  }
}

export type TemplateFunction = (args: unknown[]) => unknown;

/** Marks an array built from a tuple literal (`('a', 'b')`), which behaves differently in places. */
export const TUPLE: unique symbol = Symbol('jinja.tuple');

export function makeTuple(items: unknown[]): unknown[] {
  (items as unknown as Record<symbol, boolean>)[TUPLE] = true;
  return items;
}

/**
 * Python sequences a list cannot stand for: a generator (what select/map/reject/unique/items
 * give: always true, no len(), no indexing), the views of dict.items()/keys()/values(), and
 * range(). They are arrays tagged with what they are, so loops and filters walk them as lists.
 */
export const SEQ: unique symbol = Symbol('jinja.seq');

export type SeqTag =
  | { readonly kind: 'generator'; readonly error?: Error }
  | { readonly kind: 'dict_items' | 'dict_keys' | 'dict_values' }
  | { readonly kind: 'range'; readonly start: number; readonly stop: number; readonly step: number };

export function tagSeq<T extends unknown[]>(items: T, tag: SeqTag): T {
  Object.defineProperty(items, SEQ, { value: tag });
  return items;
}

export function seqTag(v: unknown): SeqTag | undefined {
  return Array.isArray(v) ? (v as unknown as Record<symbol, SeqTag | undefined>)[SEQ] : undefined;
}

export function generator(items: unknown[]): unknown[] {
  return tagSeq(items, { kind: 'generator' });
}

/**
 * A generator filter's result: jinja2 computes it only when something walks it, so an error in
 * it is raised there (never, if the result is only tested for truth or dropped).
 */
export function lazy(compute: () => unknown[]): unknown[] {
  try {
    return generator(compute());
  } catch (err) {
    return tagSeq([], { kind: 'generator', error: err as Error });
  }
}

export function isTuple(v: unknown[]): boolean {
  return (v as unknown as Record<symbol, boolean | undefined>)[TUPLE] === true;
}

/**
 * Thrown by compiled code for an input it does not mirror exactly (an exotic value type, a
 * library quirk that ends in a JS TypeError); the caller then renders with the interpreter.
 */
export class CompiledFallback extends Error {
  constructor(readonly reason: string) {
    super(`compiled template fell back: ${reason}`);
  }
}

export function fallback(reason: string): never {
  throw new CompiledFallback(reason);
}

export const enum Kind {
  Undefined,
  Null,
  Boolean,
  Integer,
  Float,
  String,
  Array,
  Tuple,
  Object,
  Namespace,
  Function,
  Kwargs,
}

export function kindOf(v: unknown): Kind {
  switch (typeof v) {
    case 'string':
      return Kind.String;
    case 'number':
      return Number.isInteger(v) ? Kind.Integer : Kind.Float;
    case 'boolean':
      return Kind.Boolean;
    case 'undefined':
      return Kind.Undefined;
    case 'function':
      return Kind.Function;
    case 'bigint':
      return Kind.Integer;
    case 'object':
      if (v === null) return Kind.Null;
      if (Array.isArray(v)) return isTuple(v) ? Kind.Tuple : Kind.Array;
      if (Object.getPrototypeOf(v) === Object.prototype) return Kind.Object;
      if (v instanceof Boxed) {
        if (v instanceof FloatBox) return Kind.Float;
        if (v instanceof PyDict) return Kind.Object;
        if (v instanceof LoopContext) return Kind.Namespace;
        return v instanceof Namespace ? Kind.Namespace : Kind.Kwargs;
      }
      return Kind.Object;
    default:
      // bigint / symbol never come from JSON; the interpreter refuses them when converting.
      return fallback(`unsupported value type ${typeof v}`);
  }
}

const TYPE_NAMES: Record<Kind, string> = {
  [Kind.Undefined]: 'UndefinedValue',
  [Kind.Null]: 'NullValue',
  [Kind.Boolean]: 'BooleanValue',
  [Kind.Integer]: 'IntegerValue',
  [Kind.Float]: 'FloatValue',
  [Kind.String]: 'StringValue',
  [Kind.Array]: 'ArrayValue',
  [Kind.Tuple]: 'TupleValue',
  [Kind.Object]: 'ObjectValue',
  [Kind.Namespace]: 'NamespaceValue',
  [Kind.Function]: 'FunctionValue',
  [Kind.Kwargs]: 'KeywordArgumentsValue',
};

/** The interpreter's `value.type`, which its error messages quote. */
export function typeName(v: unknown): string {
  return TYPE_NAMES[kindOf(v)];
}

/** A plain object standing for an ObjectValue (not an array, box or function). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Boxed);
}

/** A dict's keys in order (plain object or PyDict). */
export function dictKeys(o: object): string[] {
  return o instanceof PyDict || o instanceof Namespace ? [...o.m.keys()] : Object.keys(o);
}

export function dictGet(o: object, key: string): unknown {
  if (o instanceof PyDict || o instanceof Namespace) return o.m.get(key);
  return Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

export function dictHas(o: object, key: string): boolean {
  return o instanceof PyDict || o instanceof Namespace ? o.m.has(key) : Object.hasOwn(o, key);
}

export const hasOwn = Object.hasOwn as (o: object, key: string) => boolean;

/** The numeric value of an integer or float (boxed or not). */
export function num(v: number | FloatBox): number {
  return typeof v === 'number' ? v : v.v;
}

/** A float-typed result: boxed when integral so it keeps printing as a float. */
export function floatResult(x: number): number | FloatBox {
  return Number.isInteger(x) ? new FloatBox(x) : x;
}

/** An integer-typed result; the interpreter would hold a non-integer in an IntegerValue. */
export function intResult(x: number): number {
  return Number.isInteger(x) ? x : fallback('integer operation gave a non-integer');
}

/** `__bool__`: Python truthiness, except that a namespace is always true (the library's quirk). */
export function truthy(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return !!v;
  if (Array.isArray(v)) return v.length > 0 || seqTag(v)?.kind === 'generator';
  if (v instanceof FloatBox) return v.v !== 0;
  if (v instanceof Namespace) return true;
  if (v instanceof PyDict) return v.m.size > 0;
  if (v instanceof Kwargs) return v.m.size > 0;
  for (const key in v) if (hasOwn(v, key)) return true;
  return false;
}

/** Own keys in the order the interpreter's Map (built from Object.entries) would list them. */
export const keysOf = Object.keys as (o: object) => string[];
