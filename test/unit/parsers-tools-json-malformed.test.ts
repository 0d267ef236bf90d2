/**
 * JSON-family tool parsers on output that is not a clean call: undeclared tools, broken JSON,
 * markers that never close, text cut at every position, markers split at every position, the
 * buffer limit, and random garbage. The rules checked (stream-base.ts): an undecided candidate
 * that is not a call is text, verbatim; a committed call that breaks off still ends as a call
 * whose arguments parse; parsers never throw; streamed always folds like non-streamed.
 */
import { describe, expect, it } from 'vitest';
import { JSON_FAMILY_TOOL_PARSERS } from '../../src/pipeline/parsers/tools/registry-json.js';
import type { ToolParserSpec } from '../../src/pipeline/parsers/tools/types.js';
import { PARSER_BUFFER_LIMIT } from '../../src/pipeline/parsers/types.js';
import { FIXTURES, TOOLS } from '../fixtures/tools/json-family.js';
import { allSplits, randomSplits, rng } from '../support/splits.js';
import { cutSplits, expectArgsParse, expectSplitsFold, expectWellFormed, fold, folded, streamItems } from '../support/tool-parser-check.js';

function spec(name: string): ToolParserSpec {
  const s = JSON_FAMILY_TOOL_PARSERS.find((p) => p.name === name);
  if (!s) throw new Error(`no parser ${name}`);
  return s;
}

const D = '｜DSML｜';
const DS = { calls: '<｜tool▁calls▁begin｜>', call: '<｜tool▁call▁begin｜>', sep: '<｜tool▁sep｜>', end: '<｜tool▁call▁end｜>', callsEnd: '<｜tool▁calls▁end｜>' };

/** Calls to a tool nobody declared: each stays text exactly as written. */
const UNDECLARED: Array<[parser: string, text: string]> = [
  ['json', 'Result: {"name": "send_email", "arguments": {"to": "a@b.c"}} ok'],
  ['json', '[{"name": "send_email", "arguments": {}}, {"name": "search", "arguments": {}}]'],
  ['qwen', 'x <tool_call>\n{"name": "send_email", "arguments": {"to": "a"}}\n</tool_call> y'],
  ['qwen_xml', '<tool_call>\n<function=send_email>\n<parameter=to>\na\n</parameter>\n</function>\n</tool_call>'],
  ['llama', '<|python_tag|>{"name": "send_email", "parameters": {}}'],
  ['llama', '{"name": "send_email", "parameters": {"to": "x"}}'],
  ['mistral', '[TOOL_CALLS]send_email[ARGS]{"to": "x"}'],
  ['mistral', '[TOOL_CALLS] [{"name": "send_email", "arguments": {}}]'],
  ['pythonic', '[send_email(to="x")]'],
  ['deepseek', `${DS.calls}${DS.call}function${DS.sep}send_email\n\`\`\`json\n{}\n\`\`\`${DS.end}${DS.callsEnd}`],
  ['deepseek31', `${DS.calls}${DS.call}send_email${DS.sep}{}${DS.end}${DS.callsEnd}`],
  ['deepseek32', `<${D}function_calls>\n<${D}invoke name="send_email">\n</${D}invoke>\n</${D}function_calls>`],
  ['deepseek_v4', `<${D}tool_calls>\n<${D}invoke name="send_email">\n</${D}invoke>\n</${D}tool_calls>`],
];

/** Broken before the name is known: not a call, so text. */
const BROKEN_EARLY: Array<[parser: string, text: string]> = [
  ['json', '{name: "search", arguments: {}}'],
  ['qwen', '<tool_call>\n{name: "search"}\n</tool_call>'],
  ['qwen', '<tool_call>\n<function=search>\n</function>\n</tool_call>'],
  ['llama', '<|python_tag|>{"name": invalid}'],
  ['mistral', '[TOOL_CALLS]search now[ARGS]{}'],
  ['pythonic', '[search x(q=1)]'],
  ['deepseek', `${DS.calls}${DS.call}tool${DS.sep}search\n\`\`\`json\n{}\n\`\`\`${DS.end}`],
  ['deepseek32', `<${D}function_calls>\n<${D}invoke nam="search">\n</${D}invoke>`],
];

describe('JSON-family tool parsers: malformed output', () => {
  it('a call to an undeclared tool stays text, verbatim, streamed or not', () => {
    for (const [parser, text] of UNDECLARED) {
      const p = spec(parser);
      const expected = folded(text);
      expect(fold(p.parse(text, TOOLS)), `${parser}: ${text}`).toEqual(expected);
      expectSplitsFold(p, TOOLS, cutSplits(text, false), expected);
      expectSplitsFold(p, TOOLS, randomSplits(text, 30, 3, 4), expected);
    }
  });

  it('a candidate broken before its name is known stays text', () => {
    for (const [parser, text] of BROKEN_EARLY) {
      const p = spec(parser);
      expect(fold(p.parse(text, TOOLS)), `${parser}: ${text}`).toEqual(folded(text));
      expectSplitsFold(p, TOOLS, cutSplits(text, false), folded(text));
    }
  });

  it('a committed call whose JSON breaks ends there with parseable arguments; the rest is text', () => {
    const cases: Array<[string, string, string, Array<[string, unknown]>]> = [
      ['qwen', '<tool_call>\n{"name": "search", "arguments": {"q": "x",, "y": 1}}\n</tool_call>', ', "y": 1}}\n</tool_call>', [['search', { q: 'x' }]]],
      ['json', '{"name": "search", "arguments": {"tags": [1, 2 3]}} tail', '3]}} tail', [['search', { tags: [1, 2] }]]],
      ['mistral', '[TOOL_CALLS]search[ARGS]{"q": "a\\qb"}', 'qb"}', [['search', { q: 'a' }]]],
      ['deepseek31', `${DS.calls}${DS.call}search${DS.sep}{"limit": 12.}${DS.end}`, `}${DS.end}`, [['search', { limit: 12 }]]],
      ['pythonic', '[search(q="x", limit=3 4)]', '4)]', [['search', { q: 'x', limit: 3 }]]],
    ];
    for (const [parser, text, rest, calls] of cases) {
      const p = spec(parser);
      const expected = folded(rest, calls.map(([name, args]) => ({ name, arguments: JSON.stringify(args) })));
      expect(fold(p.parse(text, TOOLS)), `${parser}: ${text}`).toEqual(expected);
      expectSplitsFold(p, TOOLS, cutSplits(text, true), expected);
    }
  });

  it('a marker that never closes: a name still being written stays text, a committed call is closed', () => {
    const cases: Array<[string, string, string, Array<[string, unknown]>]> = [
      ['qwen', 'Hi <tool_call>\n{"name": "sea', 'Hi <tool_call>\n{"name": "sea', []],
      ['qwen', '<tool_call>\n{"name": "search", "arguments": {"q": "unfinished', '', [['search', { q: 'unfinished' }]]],
      ['qwen', '<tool_call>\n{"name": "search", "arguments": {"filters": {"a": [1, tr', '', [['search', { filters: { a: [1, true] } }]]],
      ['qwen', '<tool_call>\n{"name": "search", "arguments": {"q"', '', [['search', { q: null }]]],
      ['qwen', '<tool_call>\n{"name": "search"', '', [['search', {}]]],
      ['qwen_xml', '<tool_call>\n<function=get_weather>\n<parameter=days>\n1', '', [['get_weather', { days: 1 }]]],
      ['qwen_xml', '<tool_call>\n<function=get_wea', '<tool_call>\n<function=get_wea', []],
      ['mistral', '[TOOL_CALLS]search[AR', '[TOOL_CALLS]search[AR', []],
      ['mistral', '[TOOL_CALLS]search[ARGS]{"limit": 1', '', [['search', { limit: 1 }]]],
      ['pythonic', 'go [search(q=\'caf\\u00e9', 'go ', [['search', { q: 'café' }]]],
      ['deepseek', `${DS.calls}${DS.call}function${DS.sep}search\n\`\`\`json\n{"q": "x"}`, '', [['search', { q: 'x' }]]],
      ['deepseek32', `<${D}function_calls>\n<${D}invoke name="search">\n<${D}parameter name="q" string="true">open ended`, '', [['search', { q: 'open ended' }]]],
    ];
    for (const [parser, text, rest, calls] of cases) {
      const p = spec(parser);
      const expected = folded(rest, calls.map(([name, args]) => ({ name, arguments: JSON.stringify(args) })));
      expect(fold(p.parse(text, TOOLS)), `${parser}: ${text}`).toEqual(expected);
      expectSplitsFold(p, TOOLS, cutSplits(text, true), expected);
    }
  });

  it('output cut at any position: arguments always parse and streaming agrees', () => {
    for (const f of FIXTURES) {
      const p = spec(f.parser);
      const cps = Array.from(f.text);
      for (let n = 0; n <= cps.length; n++) {
        const prefix = cps.slice(0, n).join('');
        const items = p.parse(prefix, TOOLS);
        expectWellFormed(items);
        const out = fold(items);
        expectArgsParse(out);
        // Without a call, nothing is taken out: the text is all there.
        if (out.calls.length === 0) expect(out.text, `${f.parser} @${n}`).toBe(prefix);
        const streamed = fold(streamItems(p, TOOLS, cps.slice(0, n)));
        if (JSON.stringify(streamed) !== JSON.stringify(out)) expect({ n, streamed }).toEqual({ n, streamed: out });
      }
    }
  });

  it('a start marker split at every position, not followed by a call, is text', () => {
    const markers: Array<[string, string]> = [
      ['qwen', '<tool_call>'],
      ['qwen_xml', '<function='],
      ['llama', '<|python_tag|>'],
      ['mistral', '[TOOL_CALLS]'],
      ['pythonic', '<|python_start|>'],
      ['deepseek', DS.calls],
      ['deepseek31', DS.call],
      ['deepseek32', `<${D}function_calls>`],
    ];
    for (const [parser, m] of markers) {
      const text = `a${m}b`;
      const splits = Array.from(text).length <= 15 ? allSplits(text) : cutSplits(text, true);
      expectSplitsFold(spec(parser), TOOLS, splits, folded(text));
    }
  });

  it('every split of short calls folds the same (all 2^(n-1) splits)', () => {
    const tools = [{ name: 'f' }];
    const cases: Array<[string, string, string, Array<[string, string]>]> = [
      ['json', '{"name":"f"}', '', [['f', '{}']]],
      ['json', 'a{"name":"g"}', 'a{"name":"g"}', []],
      ['pythonic', '[f(a=1)]', '', [['f', '{"a":1}']]],
      ['pythonic', 'x[f(b=\'y\')]', 'x', [['f', '{"b":"y"}']]],
      ['mistral', '[TOOL_CALLS]f{}', '', [['f', '{}']]],
      ['mistral', '[TOOL_CALLS]g{}', '[TOOL_CALLS]g{}', []],
      ['qwen', 'x<tool_call>y', 'x<tool_call>y', []],
      ['llama', '{"name":"f"};', '', [['f', '{}']]],
    ];
    for (const [parser, text, rest, calls] of cases) {
      const expected = folded(rest, calls.map(([name, args]) => ({ name, arguments: args })));
      expect(fold(spec(parser).parse(text, tools)), text).toEqual(expected);
      const n = expectSplitsFold(spec(parser), tools, allSplits(text), expected);
      expect(n).toBe(2 ** (Array.from(text).length - 1));
    }
  });

  it('an undecided candidate longer than the buffer limit is text, and so is everything after', () => {
    const big = 'x'.repeat(PARSER_BUFFER_LIMIT);
    const text = `start {"note": "${big}"} {"name": "search", "arguments": {}}`;
    const expected = folded(text);
    const p = spec('json');
    expect(fold(p.parse(text, TOOLS))).toEqual(expected);
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 65536) chunks.push(text.slice(i, i + 65536));
    expect(fold(streamItems(p, TOOLS, chunks))).toEqual(expected);
    // A committed call streams no matter how long its arguments get.
    const long = `<tool_call>\n{"name": "write_file", "arguments": {"content": "${big}"}}\n</tool_call>`;
    const q = spec('qwen');
    const out = fold(streamItems(q, TOOLS, [long.slice(0, 100), long.slice(100, 3_000_000), long.slice(3_000_000)]));
    expect(out.calls).toEqual([{ name: 'write_file', arguments: JSON.stringify({ content: big }) }]);
    expect(out.text).toBe('');
  });

  it('a long JSON answer held as a candidate comes out verbatim, streamed a token at a time', () => {
    const answer = '{"items": [' + Array.from({ length: 5000 }, (_, i) => `{"id": ${i}, "name": "n${i}"}`).join(', ') + ']}';
    const text = `Here: ${answer} done`;
    const deltas: string[] = [];
    for (let i = 0; i < text.length; i += 4) deltas.push(text.slice(i, i + 4));
    expect(fold(streamItems(spec('json'), TOOLS, deltas))).toEqual(folded(text));
    expect(fold(spec('json').parse(text, TOOLS))).toEqual(folded(text));
    const list = `[${answer}, 2]`;
    expect(fold(streamItems(spec('json'), TOOLS, Array.from(list)))).toEqual(folded(list));
  });

  it('random garbage built from format pieces never throws and streams like it parses', () => {
    const pieces = [
      '{', '}', '[', ']', '"', ':', ',', ' ', '\n', '"name"', '"search"', '"get_weather"', '"arguments"', '"parameters"', '"q"', '1', '-2.5e3', 'true', 'null', '\\', '\\u00e9', 'é', '😀',
      '<tool_call>', '</tool_call>', '<function=search>', '<parameter=q>', '</parameter>', '</function>', '<|python_tag|>', ';', '[TOOL_CALLS]', '[ARGS]', 'search', 'get_weather',
      '(', ')', '=', "'", 'q=', 'True', 'None', '<|python_start|>', '<|python_end|>', DS.calls, DS.call, DS.sep, DS.end, DS.callsEnd, 'function', '```json', '```',
      `<${D}function_calls>`, `<${D}invoke name="search">`, `<${D}parameter name="q" string="true">`, `</${D}parameter>`, `</${D}invoke>`, `</${D}function_calls>`, 'text',
    ];
    const next = rng(20240611);
    for (const p of JSON_FAMILY_TOOL_PARSERS) {
      for (let k = 0; k < 100; k++) {
        let text = '';
        const n = 1 + Math.floor(next() * 24);
        for (let i = 0; i < n; i++) text += pieces[Math.floor(next() * pieces.length)];
        const items = p.parse(text, TOOLS);
        expectWellFormed(items);
        const out = fold(items);
        expectArgsParse(out);
        expectSplitsFold(p, TOOLS, randomSplits(text, 3, k + 1, 5), out);
      }
    }
  });
});
