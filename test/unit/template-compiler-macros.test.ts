/**
 * Macros, compiled vs interpreted: argument binding (positional, keyword, defaults that see the
 * other parameters, the library's errors for extra arguments), recursion, namespaces mutated from
 * a macro, loops and break inside a macro, macros called before they are defined or printed.
 */
import { describe, it } from 'vitest';
import { contexts } from '../support/chat-contexts.js';
import { CTX, expectSame } from '../support/template-semantics.js';

const RENDER_PARTS =
  '{% macro render(c) %}{% if c is string %}{{ c }}{% elif c is iterable %}{% for p in c %}{% if p.type == "text" %}{{ p.text }}{% else %}[{{ p.type }}]{% endif %}{% endfor %}{% else %}{{ c | tojson }}{% endif %}{% endmacro %}' +
  '{% for m in messages %}<{{ m.role }}>{{ render(m.content) }}{% endfor %}';

const TEMPLATES = [
  '{% macro m(x, y=2, z=x) %}[{{ x }}|{{ y }}|{{ z }}]{% endmacro %}{{ m(1) }}{{ m(1, 3) }}{{ m(1, z=9) }}{{ m(y=5) }}{{ m() }}',
  '{% macro m(x, y=x + 1, z=y * 2) %}{{ x }},{{ y }},{{ z }}{% endmacro %}{{ m(1) }}|{{ m(1, 5) }}|{{ m(1, z=0) }}',
  '{% macro m(x, y=z, z=3) %}{{ y }}|{{ z }}{% endmacro %}{{ m(1) }}',
  '{% macro m(x) %}{{ x }}{% endmacro %}{{ m(1, 2) }}',
  '{% macro m(x) %}{{ x }}{% endmacro %}{{ m(q=1) }}',
  '{% macro m(x) %}{{ x }}{% endmacro %}{{ m(1, x=2) }}',
  '{% macro m(x) %}{{ x is defined }}{% endmacro %}{{ m() }}{{ m(undef) }}{{ m(none) }}',
  '{% macro m(x) %}{% if x > 0 %}{{ x }}{{ m(x - 1) }}{% endif %}{% endmacro %}{{ m(3) }}',
  '{% macro m(a) %}{% set ns.v = ns.v + a %}{% endmacro %}{% set ns = namespace(v=0) %}{% for x in [1, 2, 3] %}{{ m(x) }}{% endfor %}{{ ns.v }}',
  '{% macro m(a) %}{% for x in a %}{{ x }}{% if x == 2 %}{% break %}{% endif %}{% endfor %}{% endmacro %}{{ m([1, 2, 3]) }}{{ m is callable }}{{ m is defined }}',
  '{% macro m(a) %}{% set b = a ~ "!" %}{{ b }}{% endmacro %}{{ m("x") }}{{ b }}',
  '{% if t %}{% macro m(a) %}{% set b, c = [a, 2] %}{{ b }}{{ c }}{% for x in [1] %}{{ b }}{% endfor %}{% endmacro %}{% endif %}{{ m("x") }}',
  '{{ m() }}{% macro m() %}x{% endmacro %}{{ m() }}',
  '{% macro m() %}{{ s }}{{ arr | length }}{% endmacro %}{{ m() }}{{ m() ~ m() }}{{ (m() + "x") | upper }}',
  '{% if t %}{% macro m() %}yes{% endmacro %}{% endif %}{{ m() }}',
  '{% for i in [1, 2] %}{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m(i) }}{% endfor %}',
  '{% macro m(x) %}{{ raise_exception("bad " ~ x) }}{% endmacro %}{% for y in arr %}{{ m(y) }}{% endfor %}',
  '{% macro m(x) %}{{ x.role }}{% endmacro %}{{ msgs | map(attribute="role") | join(",") }}{% for mm in msgs if mm.role != "tool" %}{{ m(mm) }}{% endfor %}',
  RENDER_PARTS,
];

describe('macros, compiled vs interpreted', () => {
  it.each(TEMPLATES)('%s', (source) => {
    expectSame(source, [CTX, ...contexts(9, 20).map((c) => ({ ...CTX, ...c }))]);
  });
});
