/**
 * Quirks of the oracle (@huggingface/jinja's interpreter, which differs from Python Jinja) spelled
 * out literally, values that are not plain JSON objects, strftime_now, and what the compiler
 * leaves to the interpreter (whole templates, or single renders).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatTemplate } from '../../src/pipeline/chat-template.js';
import { both, pair, type Outcome } from '../support/template-oracle.js';
import { CTX, expectSame } from '../support/template-semantics.js';

describe('quirks of the oracle, spelled out', () => {
  const out = (source: string, ctx: Record<string, unknown> = CTX): Outcome => expectSame(source, [ctx]);

  it('prints floats with a fraction and integers without, in output but not in ~ or tojson', () => {
    expect(out('{{ 2.0 }}|{{ 4 / 2 }}|{{ 2.0 ~ "" }}|{{ [2.0] | tojson }}|{{ 1 + 1 }}')).toEqual({ output: '2.0|2.0|2|[2]|2' });
  });

  it('strips all whitespace whatever the argument of strip/lstrip/rstrip', () => {
    expect(out("[{{ '\\n x \\n'.strip('\\n') }}]")).toEqual({ output: '[x]' });
  });

  it('drops the output of an iteration left by break or continue, and runs else when none completed', () => {
    expect(out('{% for x in [1, 2, 3] %}a{{ x }}{% if x == 2 %}{% continue %}{% endif %}b{% endfor %}')).toEqual({ output: 'a1ba3b' });
    expect(out('{% for x in [1, 2] %}a{% continue %}{% else %}E{{ x }}{% endfor %}')).toEqual({ output: 'E2' });
  });

  it('shares one scope across iterations, invisible after the loop', () => {
    expect(out('{% for x in [1, 2] %}[{{ y }}]{% set y = x %}{% endfor %}[{{ y }}]')).toEqual({ output: '[][1][]' });
  });

  it('joins a none element as undefined with ~, and prints containers as JSON', () => {
    expect(out("{{ [none, 1] ~ '' }}|{{ [none, 'a', {'k': undefined_name}] }}")).toEqual({ output: 'undefined,1|[null, "a", {"k": undefined}]' });
  });

  it('uses the library tojson separators, indent and ensure_ascii', () => {
    expect(out("{{ {'a': [1, 'é']} | tojson }}|{{ {'a': [1]} | tojson(indent=2) }}|{{ 'é😀' | tojson(ensure_ascii=true) }}")).toEqual({
      output: '{"a": [1, "é"]}|{\n  "a": [\n    1\n  ]\n}|"\\u00e9\\ud83d\\ude00"',
    });
  });

  it('reads attributes of undefined and none as undefined, but indexes them with an error', () => {
    expect(out('[{{ undef.a.b }}{{ nul.a }}]')).toEqual({ output: '[]' });
    expect(out('{{ nul[0] }}')).toEqual({ error: 'Cannot access property with non-string: got IntegerValue' });
    expect(out('{{ undef.trim() }}')).toEqual({ error: 'Cannot call something that is not a function: got UndefinedValue' });
  });

  it('refuses a context key that redeclares a builtin', () => {
    expect(out('{{ 1 }}', { namespace: 'x' })).toEqual({ error: 'Variable already declared: namespace' });
  });
});

describe('objects that are not plain JSON objects', () => {
  const source =
    '{{ m.role }}|{{ m.content }}|{{ m.toString }}|{{ m.constructor }}|{{ m | tojson }}|{{ m.items() }}|{{ m.get("role") }}|{{ "role" in m }}|{% for k in m %}{{ k }},{% endfor %}';

  it.each([
    ['a JSON "__proto__" key (an own property)', JSON.parse('{"m": {"__proto__": {"role": "x"}, "content": "c"}}')],
    ['an inherited property', { m: Object.assign(Object.create({ role: 'inherited' }), { content: 'own' }) }],
    ['a null prototype', { m: Object.assign(Object.create(null), { role: 'user', content: 'x' }) }],
    ['keys named like Object.prototype members', { m: { constructor: 'c', toString: 't', hasOwnProperty: 'h', role: 'r' } }],
    ['keys named like the builtin methods', { m: { items: 'i', get: 'g', keys: 1, role: 'r' } }],
  ])('%s', (_, ctx) => {
    expectSame(source, [ctx]);
  });
});

describe('strftime_now', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date(2025, 0, 5, 7, 3), toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('formats the current local time like the library', () => {
    expect(expectSame("{{ strftime_now('%Y-%m-%d %H:%M %b %B %% %y') }}|{{ strftime_now('%d %B %Y') | length }}")).toEqual({
      output: `2025-01-05 07:03 ${new Intl.DateTimeFormat(undefined, { month: 'short' }).format(new Date())} ${new Intl.DateTimeFormat(undefined, { month: 'long' }).format(new Date())} % %y|15`,
    });
  });
});

describe('what the compiler leaves to the interpreter', () => {
  it.each([
    ['{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}x{% endcall %}', 'caller'],
    ['{% macro m() %}x{% endmacro %}{% call m() %}x{% endcall %}', 'CallStatement'],
    ['{% macro m() %}{{ kwargs }}{% endmacro %}', 'kwargs'],
    ['{% macro m() %}{{ loop.index }}{% endmacro %}{% for x in [1] %}{{ m() }}{% endfor %}', 'macro'],
    ['{% macro m() %}{{ x }}{% endmacro %}{% for x in [1] %}{{ m() }}{% endfor %}', "reading 'x'"],
    ['{% macro m() %}{% macro n() %}{% endmacro %}{% endmacro %}', 'inside a macro'],
    ['{% macro m() %}{% break %}{% endmacro %}', 'outside a loop'],
    ['{% macro m(a) %}{% if a %}{% set b = 1 %}{% endif %}{{ b }}{% endmacro %}', "reading 'b'"],
    ['{% set true = 1 %}', 'builtin'],
    ['{% for loop in [1] %}{% endfor %}', 'builtin'],
    ['{% break %}', 'outside a loop'],
    ['{% for x in [1] %}{% else %}{{ loop.index }}{% endfor %}', 'for-else'],
    ['{{ f(*args) }}', 'unpacking'],
    ["{{ {1: 'x'} }}", 'object literal'],
    ["{{ {'1': 'x'} }}", 'object literal'],
    ["{{ x | join(undef.y[0]) }}", 'may fail'],
    ['{{ x is eq }}', 'eq'],
    ['{{ x is foo }}', 'foo'],
    ["{{ x | selectattr(a) }}", 'selectattr'],
    ["{{ x | selectattr('a', 'eq') }}", 'selectattr'],
  ])('%s', (source, reason) => {
    const p = pair(source);
    expect(p.compiled).toBeNull();
    expect(p.reason).toContain(reason);
    // ChatTemplate still renders it, through the interpreter.
    const tpl = ChatTemplate.compile(source, { bosToken: null, eosToken: null, unkToken: null, padToken: null });
    expect(tpl.interpretedBecause).toContain(reason);
  });

  it('hands one render to the interpreter for a value it does not mirror', () => {
    const p = pair('{% set x = [] | first %}{{ x is defined }}');
    expect(p.reason).toBeNull();
    expect(both(p, {})).toEqual({ expected: { output: 'false' }, actual: { fallback: 'first of an empty array' } });
    const tpl = ChatTemplate.compile('{% set x = messages | first %}{{ x is defined }}', { bosToken: null, eosToken: null, unkToken: null, padToken: null });
    expect(tpl.interpretedBecause).toBeNull();
    expect(tpl.render({ messages: [] })).toBe('false');
    expect(tpl.render({ messages: [{ role: 'user', content: 'a' }] })).toBe('true');
  });
});
