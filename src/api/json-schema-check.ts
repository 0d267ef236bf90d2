/**
 * Is a tool's `parameters` (or a `response_format` schema) a JSON Schema at all? A schema that is
 * not one reaches the engine's grammar compiler (or the chat template) and fails there, far from
 * the field at fault; here it is a 400 naming the field.
 *
 * "Valid" means ajv can compile it, with strict mode off so the keywords and formats real clients
 * send (`prefixItems`, `format: "uuid"`, vendor `x-…` keys) are accepted rather than refused. A
 * root `$schema` is ignored: ajv only knows draft-07 here, and a schema declaring 2020-12 is still
 * a schema. `pattern` regexes are not judged either: grammar engines take dialects JavaScript's
 * RegExp does not (`(?P<name>…)`), so an unparsable one compiles to a match-all placeholder.
 *
 * Clients resend the same tools on every turn, so verdicts are memoized by the schema's JSON text
 * (bounded); compiled validators are never kept (`addUsedSchema: false` and `removeSchema`), so
 * many distinct schemas cannot grow the ajv instance.
 */
import { Ajv, type CodeOptions, type ErrorObject } from 'ajv';

const MAX_CACHED = 512;

function tolerantRegExp(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch {
    try {
      return new RegExp(pattern, flags.replace('u', ''));
    } catch {
      return /(?:)/;
    }
  }
}

// `code` only matters to ajv's standalone code generation, which is not used here.
const regExp: NonNullable<CodeOptions['regExp']> = Object.assign(tolerantRegExp, { code: 'tolerantRegExp' });

const ajv = new Ajv({ strict: false, logger: false, validateFormats: false, addUsedSchema: false, code: { regExp } });

const verdicts = new Map<string, string | null>();

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function firstError(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return 'not a valid JSON Schema';
  return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`;
}

function compileProblem(schema: Record<string, unknown>): string | null {
  const root: Record<string, unknown> = { ...schema };
  delete root.$schema;
  try {
    if (!ajv.validateSchema(root)) return `at ${firstError(ajv.errors)}`;
    ajv.compile(root);
    return null;
  } catch (err) {
    // Unresolvable $ref, recursion too deep for the compiler, …
    return (err as Error).message;
  } finally {
    ajv.removeSchema(root);
  }
}

/**
 * Why `schema` is not a JSON Schema object ajv can compile, or null when it is one. The text is
 * the problem only (`must be a JSON Schema object, got a string`); callers prefix the field.
 */
export function jsonSchemaProblem(schema: unknown): string | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return `must be a JSON Schema object, got ${describe(schema)}`;
  }
  let key: string;
  try {
    key = JSON.stringify(schema);
  } catch (err) {
    return `not valid JSON: ${(err as Error).message}`;
  }
  const cached = verdicts.get(key);
  if (cached !== undefined) {
    // Refresh: the map's insertion order is the eviction order.
    verdicts.delete(key);
    verdicts.set(key, cached);
    return cached === null ? null : `invalid JSON Schema: ${cached}`;
  }
  const problem = compileProblem(schema as Record<string, unknown>);
  verdicts.set(key, problem);
  if (verdicts.size > MAX_CACHED) verdicts.delete(verdicts.keys().next().value as string);
  return problem === null ? null : `invalid JSON Schema: ${problem}`;
}
