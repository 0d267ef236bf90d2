/**
 * JSON-family tool parsers on real-format outputs (test/fixtures/tools/json-family.ts): the
 * non-streaming items, and streamed == non-streamed for every cut into two or three deltas, one
 * character per delta, and seeded random splits.
 */
import { describe, expect, it } from 'vitest';
import { JSON_FAMILY_TOOL_PARSERS } from '../../src/pipeline/parsers/tools/registry-json.js';
import type { ToolParserSpec } from '../../src/pipeline/parsers/tools/types.js';
import { FIXTURES, TOOLS } from '../fixtures/tools/json-family.js';
import { randomSplits } from '../support/splits.js';
import { cutSplits, expectArgsParse, expectSplitsFold, expectWellFormed, fold, folded } from '../support/tool-parser-check.js';

function spec(name: string): ToolParserSpec {
  const s = JSON_FAMILY_TOOL_PARSERS.find((p) => p.name === name);
  if (!s) throw new Error(`no parser ${name}`);
  return s;
}

describe('JSON-family tool parsers: fixtures', () => {
  for (const f of FIXTURES) {
    describe(`${f.parser}: ${f.name}`, () => {
      const p = spec(f.parser);
      const expected = folded(
        f.expect.text,
        f.expect.calls.map(([name, args]) => ({ name, arguments: JSON.stringify(args) })),
      );

      it('non-streaming parse gives the text and the calls', () => {
        const items = p.parse(f.text, TOOLS);
        expectWellFormed(items);
        const out = fold(items);
        expect(out).toEqual(expected);
        expectArgsParse(out);
      });

      it('every two- and three-piece split folds the same', () => {
        const three = Array.from(f.text).length <= 80;
        const n = expectSplitsFold(p, TOOLS, cutSplits(f.text, three), expected);
        expect(n).toBeGreaterThan(0);
      });

      it('one character per delta and random splits fold the same', () => {
        expectSplitsFold(p, TOOLS, randomSplits(f.text, 150, f.text.length, 9), expected);
        expectSplitsFold(p, TOOLS, randomSplits(f.text, 50, 7, 2), expected);
      });
    });
  }

  it('qwen_coder and nemotron are qwen_xml under other names', () => {
    const f = FIXTURES.find((x) => x.parser === 'qwen_xml') as (typeof FIXTURES)[number];
    const ref = fold(spec('qwen_xml').parse(f.text, TOOLS));
    expect(fold(spec('qwen_coder').parse(f.text, TOOLS))).toEqual(ref);
    expect(fold(spec('nemotron').parse(f.text, TOOLS))).toEqual(ref);
  });

  it('every fixture is text, unchanged, under passthrough and when no tool is declared', () => {
    for (const f of FIXTURES) {
      expect(fold(spec('passthrough').parse(f.text, TOOLS))).toEqual(folded(f.text));
      expect(fold(spec(f.parser).parse(f.text, []))).toEqual(folded(f.text));
    }
  });

  it('streams arguments before the call ends', () => {
    const p = spec('qwen').create(TOOLS);
    const seen = [
      ...p.push('Sure.\n<tool_call>\n{"name": "search", "arguments": {"q": "long '),
      ...p.push('query text'),
    ];
    expect(seen).toEqual([
      { kind: 'text', text: 'Sure.\n' },
      { kind: 'tool_start', tool: 0, name: 'search' },
      { kind: 'tool_args', tool: 0, text: '{"q":"long ' },
      { kind: 'tool_args', tool: 0, text: 'query text' },
    ]);
    expect(p.push('"}}\n</tool_call>')).toEqual([{ kind: 'tool_args', tool: 0, text: '"}' }]);
    expect(p.finish()).toEqual([]);
  });

  it('releases plain text at once, holding only a possible marker start', () => {
    const p = spec('qwen').create(TOOLS);
    expect(p.push('Hello wor')).toEqual([{ kind: 'text', text: 'Hello wor' }]);
    expect(p.push('ld <tool')).toEqual([{ kind: 'text', text: 'ld ' }]);
    expect(p.push('box>')).toEqual([{ kind: 'text', text: '<toolbox>' }]);
    expect(p.finish()).toEqual([]);
  });
});
