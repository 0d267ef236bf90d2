/**
 * JSON Schema → the TypeScript-like notation Harmony uses for function parameters.
 *
 * Source of every rule: openai/harmony v0.0.8 `src/encoding.rs`, `json_schema_to_typescript`
 * (expected output in `test-data/test_render_functions_with_parameters.txt`), behaviour re-derived
 * and written independently. The official gpt-oss `chat_template.jinja` has its own, simpler macro
 * (`render_typescript_type`: nested objects inline on one line, no nested descriptions, object
 * unions collapsed to `any`, …); where the two differ this follows the reference renderer.
 *
 * The reference reads schemas through serde_json with `preserve_order`, so keys keep their source
 * order; JS objects do too, except integer-like keys, which JS always lists first (a property named
 * "1" moves to the front). `default` values are printed with serde_json's compact `Display`, which
 * `JSON.stringify` matches except for float spelling (serde prints `20.0` for a float 20 and uses
 * ryu's exponent style); the parsed value cannot tell `20.0` from `20`, so integers print bare.
 *
 * Deliberately not done, because the reference does not do it either: `anyOf`/`allOf`, `$ref`,
 * `const`, non-string `enum`s and `additionalProperties` all render as the reference renders them
 * (`anyOf` alone → `any`, integer enums → `number`, …), so the model sees what it was trained on.
 */

type Schema = Record<string, unknown>;

function isObject(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** serde_json's `Value::get(key)` on any value: only objects have keys. */
function get(schema: unknown, key: string): unknown {
  return isObject(schema) ? schema[key] : undefined;
}

/** serde_json's `get(key).is_some()`: present even when the value is `null`. */
function has(schema: unknown, key: string): boolean {
  return isObject(schema) && Object.prototype.hasOwnProperty.call(schema, key);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function isEnum(schema: unknown): boolean {
  const e = get(schema, 'enum');
  return Array.isArray(e) && e.length > 0;
}

function isNullable(schema: unknown): boolean {
  return get(schema, 'nullable') === true;
}

/** A union member or property type, with ` | null` appended for `nullable: true` (once). */
function withNullable(type: string, schema: unknown): string {
  return isNullable(schema) && !type.includes('null') ? `${type} | null` : type;
}

/** serde_json `Display` of a default value (compact JSON). */
function display(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/**
 * `default` as a comment body. The reference has three spellings: a string default of a non-enum
 * schema is quoted by hand (no escaping); a string default of an enum is bare in property and
 * property-`oneOf` comments but JSON-quoted in top-level `oneOf` variant comments; anything else
 * is compact JSON.
 */
function defaultText(value: unknown, schema: unknown, enumStringsBare: boolean): string {
  if (typeof value === 'string') {
    if (!isEnum(schema)) return `default: "${value}"`;
    return enumStringsBare ? `default: ${value}` : `default: ${display(value)}`;
  }
  return `default: ${display(value)}`;
}

/** A schema with `oneOf` at the top: each variant on its own ` | ` line, comments trailing. */
function oneOfUnion(variants: unknown[], indent: string): string {
  let out = '';
  for (const variant of variants) {
    out += `\n${indent} | `;
    out += withNullable(schemaToTypeScript(variant, `${indent}   `), variant);
    const comments: string[] = [];
    const desc = str(get(variant, 'description'));
    if (desc !== undefined) comments.push(desc);
    if (has(variant, 'default')) comments.push(defaultText(get(variant, 'default'), variant, false));
    if (comments.length > 0) out += ` // ${comments.join(' ')}`;
  }
  return out;
}

/**
 * A property whose schema has a `oneOf` array: comments above the name, then `name?:` alone on a
 * line, one ` | variant` line each, and a lone `,` closing it (see `oneof_string_or_number` in the
 * reference fixture). The property description is not repeated on a first variant with the same
 * description.
 */
function oneOfProperty(key: string, optional: boolean, prop: Schema, variants: unknown[], indent: string): string {
  let out = '';
  const propDesc = str(prop.description);
  const skipDesc = propDesc !== undefined && str(get(variants[0], 'description')) === propDesc;
  const descAbove = propDesc !== undefined && !skipDesc;
  if (descAbove) out += `${indent}// ${propDesc}\n`;
  if (has(prop, 'default')) out += `${indent}// ${defaultText(prop.default, prop, true)}\n`;
  out += `${indent}${key}${optional ? '?' : ''}:\n`;
  variants.forEach((variant, i) => {
    out += `${indent} | `;
    out += withNullable(schemaToTypeScript(variant, `${indent}   `), variant);
    const comments: string[] = [];
    const desc = str(get(variant, 'description'));
    if (!(i === 0 && descAbove) && desc !== undefined && desc !== propDesc) comments.push(desc);
    if (has(variant, 'default')) comments.push(defaultText(get(variant, 'default'), variant, true));
    if (comments.length > 0) out += ` // ${comments.join(' ')}`;
    out += '\n';
  });
  out += `${indent},\n`;
  return out;
}

/** An object type: `{`, one line per property (comments above it), `}` at the given indent. */
function objectType(schema: Schema, indent: string): string {
  let out = '';
  const desc = str(schema.description);
  // The object's own description comes before its brace, so it lands after `(_: ` or `name: `.
  if (desc !== undefined) out += `${indent}// ${desc}\n`;
  out += '{\n';
  const props = schema.properties;
  if (isObject(props)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
    for (const [key, rawProp] of Object.entries(props)) {
      const prop: Schema = isObject(rawProp) ? rawProp : {};
      const optional = !required.has(key);
      const title = str(prop.title);
      if (title !== undefined) out += `${indent}// ${title}\n${indent}//\n`;
      const propDesc = str(prop.description);
      if (!has(prop, 'oneOf') && propDesc !== undefined) out += `${indent}// ${propDesc}\n`;
      const examples = prop.examples;
      if (Array.isArray(examples) && examples.length > 0) {
        out += `${indent}// Examples:\n`;
        for (const ex of examples) if (typeof ex === 'string') out += `${indent}// - "${ex}"\n`;
      }
      if (Array.isArray(prop.oneOf)) {
        out += oneOfProperty(key, optional, prop, prop.oneOf, indent);
        continue;
      }
      out += `${indent}${key}${optional ? '?' : ''}: `;
      // Nested types are indented four spaces deeper than the property line.
      out += withNullable(schemaToTypeScript(rawProp, `${indent}    `), prop);
      out += ',';
      if (!has(prop, 'oneOf') && has(prop, 'default')) out += ` // ${defaultText(prop.default, prop, true)}`;
      out += '\n';
    }
  }
  out += `${indent}}`;
  return out;
}

/** The TypeScript-like type of one schema, as the reference renderer writes it. */
export function schemaToTypeScript(schema: unknown, indent = ''): string {
  const oneOf = get(schema, 'oneOf');
  if (Array.isArray(oneOf)) return oneOfUnion(oneOf, indent);

  const type = get(schema, 'type');
  if (Array.isArray(type)) {
    const names = type.filter((t): t is string => typeof t === 'string').map((t) => (t === 'integer' ? 'number' : t));
    if (names.length > 0) return names.join(' | ');
  }
  if (typeof type !== 'string') return 'any';
  switch (type) {
    case 'object':
      return objectType(schema as Schema, indent);
    case 'string': {
      const values = get(schema, 'enum');
      if (Array.isArray(values)) {
        const literals = values.filter((v): v is string => typeof v === 'string').map((v) => `"${v}"`);
        if (literals.length > 0) return literals.join(' | ');
      }
      return 'string';
    }
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      // `items: null` still counts as present (serde `get` is Some), giving `any[]`.
      return has(schema, 'items') ? `${schemaToTypeScript(get(schema, 'items'), indent)}[]` : 'Array<any>';
    default:
      return 'any';
  }
}
