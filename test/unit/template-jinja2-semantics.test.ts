/**
 * The jinja2 semantics issue 26 lists, spelled out on small templates, each expected text being
 * what Python jinja2 renders in transformers' environment (checked with /usr/bin/python3 and
 * scripts/templates/render-jinja2.py's environment), plus vLLM's message preprocessing through
 * ChatTemplate and what the compiler still leaves to the interpreter.
 */
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/api/json-body.js';
import { ChatTemplate } from '../../src/pipeline/chat-prompt/chat-template.js';
import type { ChatMessageInput, ToolInput } from '../../src/pipeline/chat-prompt/chat-template-messages.js';
import { compileTemplate } from '../../src/pipeline/chat-prompt/template-compiler/compile.js';
import { atFrozenNow } from '../support/template-jinja2.js';

function render(source: string, ctx: Record<string, unknown> = {}): string {
  const compiled = compileTemplate(new Template(source).parsed);
  if (!compiled.render) throw new Error(`did not compile: ${compiled.reason}`);
  const fn = compiled.render;
  return atFrozenNow(() => fn(ctx));
}

const NO_TOKENS = { bosToken: null, eosToken: null, unkToken: null, padToken: null };

describe('jinja2 semantics (Python renders)', () => {
  it.each([
    // 2: Python whitespace and strip(chars).
    ["{{ '\\n  R  \\n'.strip('\\n') }}|{{ x | trim }}|{{ x.strip() }}", { x: '\ufeff x\u0085\u001f' }, '  R  |\ufeff x|\ufeff x'],
    // 4: the format filter and printf-style %.
    ["{{ '%s=%d' | format('a', 3) }}|{{ '%s' | format(d) }}|{{ '%.2f' % 2.5 }}", { d: { a: 1 } }, "a=3|{'a': 1}|2.50"],
    // 5: iterating a string (by code point).
    ["{% for c in 'h😀' %}{{ c }},{% endfor %}", {}, 'h,😀,'],
    // 7: strftime_now, every directive, on a naive datetime.
    ["{{ strftime_now('%A %a %d %B %b %Y %H:%M:%S %j %p %y %e %I %U %W %w %Z %%') }}", {}, 'Thursday Thu 05 March Mar 2026 14:07:09 064 PM 26  5 02 09 09 4  %'],
    // 8: Undefined.
    ["{{ undef ~ 'x' }}|{{ undef | trim }}|{{ d[undef] }}|{{ none | string }}|{{ none | trim }}|{{ undef | length }}", { d: { a: 1 } }, 'x|||None|None|0'],
    // 9: tests.
    ["{{ d is iterable }}{{ undef is iterable }}{{ d is mapping }}{{ 'x' is mapping }}{{ true is number }}{{ 1.0 is integer }}", { d: { a: 1 } }, 'TrueTrueTrueFalseTrueFalse'],
    // 10: Python's printing.
    [
      "{{ {'a': true, 'b': none, 'c': 1.0, 'd': \"it's\"} }}|{{ false }}|{{ [1, 'x', (2, 3)] }}|{{ none }}|{{ x }}|{{ 1.5 * 2 }}",
      { x: 1e-7 },
      "{'a': True, 'b': None, 'c': 1.0, 'd': \"it's\"}|False|[1, 'x', (2, 3)]|None|1e-07|3.0",
    ],
    // 12: map with a filter, selectattr with a test, astral characters.
    [
      "{{ ['a ', ' b'] | map('trim') | join(',') }}|{{ ['a'] | map('upper') | list }}|{{ msgs | selectattr('tool_calls', 'undefined') | map(attribute='role') | join(',') }}",
      { msgs: [{ role: 'user' }, { role: 'assistant', tool_calls: [] }] },
      "a,b|['A']|user",
    ],
    ["{{ '😀ab' | length }}|{{ 'ǆemal x' | title }}|{{ 'ǆemal X' | capitalize }}|{{ 'ǆemal x'.title() }}|{{ '😀ab'[1] }}", {}, '3|Ǆemal X|ǅemal x|ǅemal X|a'],
    // Scoping: an iteration's assignments are its own; macros are lexically scoped; break keeps output.
    ['{% set first = true %}{% for x in [1, 2, 3] %}{% if not first %},{% endif %}{{ x }}{% set first = false %}{% endfor %}', {}, '123'],
    ['{% set x = 1 %}{% macro m() %}{{ x }}{% endmacro %}{% set x = 2 %}{% for x in [5] %}{{ m() }}{% endfor %}', {}, '2'],
    ['{% for x in [1, 2, 3] %}{{ x }}{% if x == 2 %}{% break %}{% endif %}.{% endfor %}', {}, '1.2'],
    // Generators: always true, walked by list.
    ['{% if [] | select %}yes{% endif %}|{{ [1] | select | list }}', {}, 'yes|[1]'],
    // Python arithmetic.
    ['{{ 7 / 2 }}|{{ 7 // 2 }}|{{ -7 // 2 }}|{{ 2 ** 70 }}|{{ 4 / 2 }}|{{ 10 % 3 }}|{{ -7 % 3 }}', {}, '3.5|3|-4|1180591620717411303424|2.0|1|2'],
    // transformers' tojson: json.dumps.
    [
      '{{ d | tojson(indent=2) }}|{{ d | tojson(ensure_ascii=true) }}|{{ d | tojson(sort_keys=true) }}',
      { d: { b: 'é😀', a: [1, 2.5] } },
      '{\n  "b": "é😀",\n  "a": [\n    1,\n    2.5\n  ]\n}|{"b": "\\u00e9\\ud83d\\ude00", "a": [1, 2.5]}|{"a": [1, 2.5], "b": "é😀"}',
    ],
  ])('%s', (source, ctx, expected) => {
    expect(render(source, ctx as Record<string, unknown>)).toBe(expected);
  });

  it('raises where jinja2 raises', () => {
    expect(() => render("{{ undef + 'x' }}")).toThrow(/undefined/i);
    expect(() => render("{{ 'a' + none }}")).toThrow(/concatenate/);
    expect(() => render('{{ undef.x }}')).toThrow(/UndefinedError/);
    expect(() => render('{{ [1] | select | length }}')).toThrow(/generator/);
    expect(() => render("{{ raise_exception('boom') }}")).toThrow('boom');
  });
});

describe("vLLM's preprocessing through ChatTemplate", () => {
  const tpl = (source: string, contentFormat?: 'auto' | 'string' | 'openai') => ChatTemplate.compile(source, NO_TOKENS, { contentFormat });

  it('keeps the numbers and key order of tool-call arguments and tool schemas (1)', () => {
    const body = parseJsonText(
      '{"messages": [{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\\"b\\":1,\\"2\\":3.0,\\"y\\":1e-07,\\"z\\":12345678901234567890}"}}]}],' +
        ' "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"p": {"type": "number", "maximum": 1.0}}}}}]}',
    ) as { messages: ChatMessageInput[]; tools: ToolInput[] };
    const out = tpl('{{ messages[0].tool_calls[0].function.arguments | tojson }}|{{ tools[0] | tojson }}').render({ messages: body.messages, tools: body.tools });
    expect(out).toBe(
      '{"b": 1, "2": 3.0, "y": 1e-07, "z": 12345678901234567890}|{"type": "function", "function": {"name": "f", "description": null, "parameters": {"type": "object", "properties": {"p": {"type": "number", "maximum": 1.0}}}}}',
    );
  });

  it('normalizes CRLF line endings of the template source (3)', () => {
    expect(tpl('a\r\n{{ 1 }}\r\nb\rc').render({ messages: [] })).toBe('a\n1\nb\nc');
  });

  it('passes tools and documents as None when absent (6)', () => {
    expect(tpl('{% if tools is not none %}T{% else %}N{% endif %}{{ documents is none }}').render({ messages: [] })).toBe('NTrue');
  });

  it('detects the content format as vLLM does, and takes --chat-template-content-format (11)', () => {
    const loops = "{% for m in messages %}{% for p in m['content'] %}{{ p.text }}|{% endfor %}{% endfor %}";
    const concatenates = '{% for m in messages %}{{ m.content + "|" }}{% endfor %}';
    const msgs: ChatMessageInput[] = [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }];
    expect(tpl(loops).contentFormat).toBe('openai');
    expect(tpl(loops).render({ messages: msgs })).toBe('a|b|');
    expect(tpl(concatenates).contentFormat).toBe('string');
    expect(tpl(concatenates).render({ messages: msgs })).toBe('a\nb|');
    expect(tpl(concatenates, 'openai').contentFormat).toBe('openai');
    const chars = "{% for m in messages %}{% for p in m['content'] %}{{ p }}|{% endfor %}{% endfor %}";
    expect(tpl(chars, 'string').render({ messages: [{ role: 'user', content: 'xy' }] })).toBe('x|y|');
  });

  it('accepts what vLLM accepts: empty content, object or empty arguments, [] content (13)', () => {
    const t = tpl('{% for m in messages %}[{{ m.content }}]{% for c in m.tool_calls or [] %}{{ c.function.arguments | tojson }}{% endfor %}{% endfor %}');
    const out = t.render({
      messages: [
        { role: 'user', content: '' },
        { role: 'assistant', content: [], tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: { k: [1, 'x'] } } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'b', type: 'function', function: { name: 'f', arguments: '' } }] },
      ],
    });
    expect(out).toBe('[][]{"k": [1, "x"]}[]{}');
  });

  it('keeps only the fields vLLM keeps, with reasoning under both names', () => {
    const t = tpl('{% for m in messages %}{{ m | tojson }}{% endfor %}');
    const out = t.render({ messages: [{ role: 'assistant', content: 'x', reasoning_content: 'r', extra: 1, name: 'n' }] });
    expect(out).toBe('{"role": "assistant", "content": "x", "reasoning": "r", "reasoning_content": "r", "name": "n"}');
  });
});

describe('what the compiler leaves to the interpreter', () => {
  it.each([
    ['{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}x{% endcall %}', 'caller'],
    ['{% macro m() %}{{ kwargs }}{% endmacro %}', 'kwargs'],
    ['{% macro m() %}{{ loop.index }}{% endmacro %}{% for x in [1] %}{{ m() }}{% endfor %}', 'macro'],
    ['{% macro m() %}{% macro n() %}{% endmacro %}{% endmacro %}', 'inside a macro'],
    ['{% set true = 1 %}', 'builtin'],
    ['{% for x in [1] %}{% else %}{{ loop.index }}{% endfor %}', 'for-else'],
    ["{{ {1: 'x'} }}", 'object literal'],
  ])('%s', (source, reason) => {
    const tpl = ChatTemplate.compile(source, NO_TOKENS);
    expect(tpl.interpretedBecause).toContain(reason);
  });
});
