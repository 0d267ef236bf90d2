import { beforeAll, describe, expect, it } from 'vitest';
import {
  HEADER_LIMIT,
  HarmonyChannelParser,
  type HarmonyParserOptions,
  callableToolNames,
  parseHarmony,
} from '../../src/pipeline/harmony/channel-parser.js';
import { type FoldedOutput, type ParsedItem, foldItems } from '../../src/pipeline/parsers/types.js';
import { StopStringMatcher } from '../../src/pipeline/stop-matcher.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { allSplits, randomSplits, rng } from '../support/splits.js';
import { ensureTokenizerFixture } from '../support/tokenizer-fixtures.js';

type Options = HarmonyParserOptions | (() => HarmonyParserOptions);
const opts = (o: Options | undefined): HarmonyParserOptions => (typeof o === 'function' ? o() : (o ?? {}));

function streamItems(parts: readonly string[], o?: Options): ParsedItem[] {
  const parser = new HarmonyChannelParser(opts(o));
  const items: ParsedItem[] = [];
  for (const part of parts) items.push(...parser.push(part));
  items.push(...parser.finish());
  return items;
}

/** Items must be well formed: calls numbered 0.., arguments only for a started call. */
function checkShape(items: readonly ParsedItem[]): void {
  let started = 0;
  for (const it of items) {
    if (it.kind === 'tool_start') expect(it.tool).toBe(started++);
    else if (it.kind === 'tool_args') expect(it.tool).toBeLessThan(started);
    else expect(it.text).not.toBe('');
  }
}

function parsed(text: string, o?: Options): FoldedOutput {
  const items = parseHarmony(text, opts(o));
  checkShape(items);
  return foldItems(items);
}

function expectSplitInvariant(text: string, splits: Iterable<string[]>, o?: Options): void {
  const whole = parsed(text, o);
  let n = 0;
  for (const parts of splits) {
    const items = streamItems(parts, o);
    checkShape(items);
    const got = foldItems(items);
    if (JSON.stringify(got) !== JSON.stringify(whole)) expect({ parts, got }).toEqual({ parts, got: whole });
    n++;
  }
  expect(n).toBeGreaterThan(0);
}

let tok: LoadedTokenizer;
beforeAll(async () => {
  tok = await loadTokenizer(ensureTokenizerFixture('gptoss'));
}, 120_000);

/** Every split of `text` at gpt-oss token boundaries (where a decoded prefix is whole text), as a real stream cuts it. */
function* tokenSplits(text: string): Generator<string[]> {
  const ids = tok.encode(text, false);
  const cuts: number[] = [];
  for (let k = 1; k < ids.length; k++) {
    const prefix = tok.decode(ids.slice(0, k), false);
    if (text.startsWith(prefix) && !prefix.endsWith('\uFFFD')) cuts.push(prefix.length);
  }
  if (cuts.length > 15) throw new Error(`${cuts.length + 1} tokens: too many for all splits`);
  for (let mask = 0; mask < 2 ** cuts.length; mask++) {
    const parts: string[] = [];
    let from = 0;
    cuts.forEach((at, i) => {
      if (mask & (1 << i)) {
        parts.push(text.slice(from, at));
        from = at;
      }
    });
    parts.push(text.slice(from));
    yield parts;
  }
}

const out = (text: string, reasoning: string, calls: FoldedOutput['calls'] = []): FoldedOutput => ({ text, reasoning, calls });

// Output token ids recorded in openai/harmony v0.0.8: test-data/test_simple_reasoning_response.txt,
// test-data/test_simple_tool_call.txt, and the StreamableParser example in docs/format.md.
const REASONING_RESPONSE = [
  200005, 35644, 200008, 1844, 31064, 25, 392, 4827, 382, 220, 17, 659, 220, 17, 16842, 12295, 81645, 13, 51441, 6052, 13, 200002, 200006,
  173781, 200005, 17196, 200008, 17, 659, 220, 17, 314, 220, 19, 13,
];
const SIMPLE_TOOL_CALL = [
  200005, 35644, 200008, 1844, 31064, 25, 392, 4827, 382, 290, 11122, 306, 40510, 16842, 1416, 1309, 316, 1199, 37342, 170154, 4584, 13,
  200002, 200006, 173781, 316, 28, 29712, 170154, 200005, 35644, 3490, 200008, 10848, 7693, 1243, 392, 173844, 18583,
];
const DOCS_STREAM_EXAMPLE = [
  200005, 35644, 200008, 1844, 31064, 25, 392, 4827, 382, 220, 17, 659, 220, 17, 16842, 12295, 81645, 13, 51441, 6052, 13, 200007, 200006,
  173781, 200005, 17196, 200008, 17, 659, 220, 17, 314, 220, 19, 13, 200002,
];

// Output shapes from openai/harmony docs/format.md.
const DOCS_TOOL_CALL = // "Receiving tool calls"
  '<|channel|>analysis<|message|>Need to use function get_weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location":"San Francisco"}<|call|>';
const DOCS_PREAMBLE = // "Preambles"
  '<|channel|>analysis<|message|>{long chain of thought}<|end|><|start|>assistant<|channel|>commentary<|message|>**Action plan**:\n1. Generate an HTML file\n2. Generate a JavaScript for the Node.js server\n3. Start the server\n---\nWill start executing the plan step by step<|end|><|start|>assistant<|channel|>commentary to=functions.generate_file<|constrain|>json<|message|>{"template": "basic_html", "path": "index.html"}<|call|>';
const TWO_CALLS =
  '<|channel|>analysis<|message|>Two lookups.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|end|>' +
  '<|start|>assistant to=functions.get_time<|channel|>commentary<|constrain|>json<|message|>{"tz": "Europe/Paris"}<|call|>';

describe('Harmony channel parser: real output shapes', () => {
  it('analysis then final (reference token data)', () => {
    const text = tok.decode(REASONING_RESPONSE, false);
    expect(text.startsWith('<|channel|>analysis<|message|>')).toBe(true);
    expect(parsed(text)).toEqual(out('2 + 2 = 4.', 'User asks: "What is 2 + 2?" Simple arithmetic. Provide answer.'));
    expect(parsed(tok.decode(DOCS_STREAM_EXAMPLE, false))).toEqual(parsed(text));
  });

  it('a call to a recipient outside functions.* stays chain of thought (reference test_simple_tool_call)', () => {
    // `to=lookup_weather` on analysis with content type `code`: not a function call in the chat API.
    expect(parsed(tok.decode(SIMPLE_TOOL_CALL, false))).toEqual(
      out('', 'User asks: "What is the weather in Tokyo?" We need to use lookup_weather tool.\n{"location": "Tokyo"}'),
    );
  });

  it('analysis then a tool call; arguments come out compact', () => {
    expect(parsed(DOCS_TOOL_CALL)).toEqual(
      out('', 'Need to use function get_weather.', [{ name: 'get_weather', arguments: '{"location":"San Francisco"}' }]),
    );
    // The engine stops on <|call|>, so it is usually not in the text.
    expect(parsed(DOCS_TOOL_CALL.replace('<|call|>', ''))).toEqual(parsed(DOCS_TOOL_CALL));
  });

  it('a preamble on commentary is content, then the call', () => {
    expect(parsed(DOCS_PREAMBLE)).toEqual(
      out(
        '**Action plan**:\n1. Generate an HTML file\n2. Generate a JavaScript for the Node.js server\n3. Start the server\n---\nWill start executing the plan step by step',
        '{long chain of thought}',
        [{ name: 'generate_file', arguments: '{"template":"basic_html","path":"index.html"}' }],
      ),
    );
  });

  it('several calls, recipient before or after the channel, constrain glued or spaced', () => {
    expect(parsed(TWO_CALLS)).toEqual(
      out('', 'Two lookups.', [
        { name: 'get_weather', arguments: '{"city":"Paris"}' },
        { name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
      ]),
    );
  });

  it('keeps a malformed header as text (reference test_missing_message_token_requires_non_strict_mode)', () => {
    expect(parsed('<|channel|>commentary Hello<|end|>')).toEqual(out('<|channel|>commentary Hello', ''));
    expect(parsed('<|channel|>final<|message|>Hi<|end|><|start|>assistant<|channel|>final three extra words<|message|>there<|end|>')).toEqual(
      out('Hi\n<|start|>assistant<|channel|>final three extra words<|message|>there', ''),
    );
    // A channel marker without a name, and an author that is not the assistant.
    expect(parsed('<|channel|> <|message|>x')).toEqual(out('<|channel|> <|message|>x', ''));
    expect(
      parsed('<|channel|>final<|message|>a<|end|><|start|>functions.f to=assistant<|channel|>commentary<|message|>{"r":1}<|end|>'),
    ).toEqual(out('a\n<|start|>functions.f to=assistant<|channel|>commentary<|message|>{"r":1}', ''));
  });

  it('keeps unknown and missing channels as text', () => {
    expect(parsed('<|channel|>summary<|message|>short<|end|>')).toEqual(out('short', ''));
    expect(parsed('<|message|>no header<|return|>')).toEqual(out('no header', ''));
    expect(parsed('Plain text, no Harmony at all.')).toEqual(out('Plain text, no Harmony at all.', ''));
  });

  it('treats built-in tool recipients as reasoning', () => {
    expect(parsed('<|channel|>analysis to=browser.search code<|message|>{"query":"x"}<|call|>')).toEqual(out('', '{"query":"x"}'));
    expect(parsed('<|channel|>analysis<|message|>run it<|end|><|start|>assistant to=python<|channel|>analysis code<|message|>print(1)')).toEqual(
      out('', 'run it\nprint(1)'),
    );
  });

  it('takes only declared tools when toolNames is given', () => {
    const declared = { toolNames: callableToolNames([{ type: 'function', function: { name: 'get_weather' } }]) };
    expect(parsed(DOCS_TOOL_CALL, declared).calls).toHaveLength(1);
    expect(parsed(DOCS_PREAMBLE, declared)).toEqual(
      out(
        '**Action plan**:\n1. Generate an HTML file\n2. Generate a JavaScript for the Node.js server\n3. Start the server\n---\nWill start executing the plan step by step' +
          '\n<|start|>assistant<|channel|>commentary to=functions.generate_file<|constrain|>json<|message|>{"template": "basic_html", "path": "index.html"}',
        '{long chain of thought}',
      ),
    );
    expect(parsed('<|channel|>commentary to=functions. <|constrain|>json<|message|>{}').calls).toEqual([]);
  });

  it('keeps arguments that are not JSON verbatim', () => {
    const call = (args: string, end = '<|call|>') => `<|channel|>commentary to=functions.f <|constrain|>json<|message|>${args}${end}`;
    expect(parsed(call('{"a": 1, "b": tru')).calls).toEqual([{ name: 'f', arguments: '{"a": 1, "b": tru' }]);
    expect(parsed(call('{"a":1', '')).calls).toEqual([{ name: 'f', arguments: '{"a":1' }]); // cut off by max_tokens
    expect(parsed(call('location=Paris')).calls).toEqual([{ name: 'f', arguments: 'location=Paris' }]);
    expect(parsed(call('{"a":1,"a":2}')).calls).toEqual([{ name: 'f', arguments: '{"a":1,"a":2}' }]);
    expect(parsed(call(' {\n  "a" : [1, 2.50, "\\u00e9"]\n}\n')).calls).toEqual([{ name: 'f', arguments: '{"a":[1,2.5,"é"]}' }]);
    expect(parsed(call('')).calls).toEqual([{ name: 'f', arguments: '' }]);
  });

  it('drops a header the engine cut off, keeps the rest', () => {
    expect(parsed('<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>fin')).toEqual(out('', 'x'));
    expect(parsed('<|channel|>analysis<|message|>x<|end|><|start|>')).toEqual(out('', 'x'));
    expect(parsed('<|channel|>analy')).toEqual(out('', ''));
    expect(parsed('')).toEqual(out('', ''));
  });

  it('passes a header longer than HEADER_LIMIT through as text, streaming it', () => {
    const long = `${'word '.repeat(200)}<|message|>tail<|end|><|start|>assistant<|channel|>final<|message|>ok`;
    expect(parsed(long)).toEqual(out(`${'word '.repeat(200)}<|message|>tail\nok`, ''));
    const parser = new HarmonyChannelParser();
    const early = parser.push('word '.repeat(150));
    expect(foldItems(early).text.length).toBeGreaterThan(0);
  });

  it('decides a header at the limit the same way however it is split', () => {
    for (const at of [HEADER_LIMIT - 4, HEADER_LIMIT, HEADER_LIMIT + 1]) {
      const text = `${'x'.repeat(at)}<|message|>hi<|end|>`;
      const folded = parsed(text);
      // Up to the limit a one-word header is a recipient on no channel (text); past it, all text.
      expect(folded).toEqual(at <= HEADER_LIMIT ? out('hi', '') : out(`${'x'.repeat(at)}<|message|>hi`, ''));
      expectSplitInvariant(text, [Array.from(text), ...randomSplits(text, 20, at, 3)]);
    }
  });

  it('streams content as it arrives instead of holding it', () => {
    const parser = new HarmonyChannelParser();
    expect(parser.push('<|channel|>analysis<|message|>thinking')).toEqual([{ kind: 'reasoning', text: 'thinking' }]);
    expect(parser.push(' more<|e')).toEqual([{ kind: 'reasoning', text: ' more' }]);
    expect(parser.push('nd|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"city":"Par')).toEqual([
      { kind: 'tool_start', tool: 0, name: 'f' },
      { kind: 'tool_args', tool: 0, text: '{"city":"Par' },
    ]);
    expect(parser.push('is"}')).toEqual([{ kind: 'tool_args', tool: 0, text: 'is"}' }]);
    expect(parser.finish()).toEqual([]);
  });
});

describe('Harmony channel parser: streamed equals non-streamed', () => {
  const SHORT = [
    'Hi<|end|>yo',
    'a<|message|>b',
    '<|message|>hé🙂',
    'x<|call|><|end|>',
    '<|end|>🙂<|end|>',
    '<|start|><|end|>',
    '<|return|>q<|st',
  ];
  it.each(SHORT)('every split of %j', (text) => {
    expect(Array.from(text).length).toBeLessThanOrEqual(16);
    expectSplitInvariant(text, allSplits(text));
  });

  const TOKEN_SHAPES = [
    '<|channel|>final<|message|>Hi 🙂<|return|>',
    '<|channel|>analysis<|message|>ok<|end|><|start|>assistant<|channel|>final<|message|>yes',
    '<|channel|>commentary to=functions.f<|message|>{"a": 1}<|call|>',
    '<|channel|>commentary Hello<|end|><|start|>x',
  ];
  it.each(TOKEN_SHAPES)('every token-boundary split of %j', (text) => {
    expectSplitInvariant(text, tokenSplits(text));
  });

  const LONG =
    `<|channel|>analysis<|message|>${'The user wants weather for two cities. '.repeat(30)}Plan: call both.<|end|>` +
    '<|start|>assistant<|channel|>commentary<|message|>Checking 🌦 now…<|end|>' +
    '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Zürich","days":[1,2,3],"opts":{"units":"metric","note":"say \\"hi\\"\\n😀"}}<|end|>' +
    '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{ "city" : "Paris" , "days": [ 1 ] }<|end|>' +
    '<|start|>assistant<|channel|>commentary to=functions.undeclared <|constrain|>json<|message|>{"x":1}<|end|>' +
    '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Rome", bad}<|end|>' +
    '<|start|>assistant<|channel|>bogus header words<|message|>kept<|end|>stray' +
    `<|start|>assistant<|channel|>final<|message|>${'Paris is sunny, Zürich is rainy. '.repeat(20)}Done.<|return|>`;

  it.each([
    ['any tool name', {}],
    ['declared tools only', { toolNames: ['get_weather'] }],
  ] as const)('random splits of a long output (%s)', (_name, o) => {
    expectSplitInvariant(LONG, randomSplits(LONG, 150, 42, 12), o);
    const folded = parsed(LONG, o);
    expect(folded.calls[0]).toEqual({ name: 'get_weather', arguments: '{"city":"Zürich","days":[1,2,3],"opts":{"units":"metric","note":"say \\"hi\\"\\n😀"}}' });
    expect(folded.calls[1]).toEqual({ name: 'get_weather', arguments: '{"city":"Paris","days":[1]}' });
    expect(folded.text.startsWith('Checking 🌦 now…\n')).toBe(true);
    expect(folded.text.endsWith('Done.')).toBe(true);
  });

  it('random JSON arguments: compact when valid, verbatim otherwise, for any split', () => {
    const next = rng(99);
    const pick = <T,>(a: readonly T[]): T => a[Math.floor(next() * a.length)];
    const value = (depth: number): unknown => {
      const k = depth > 2 ? Math.floor(next() * 4) : Math.floor(next() * 6);
      if (k === 0) return pick(['', 'plain', 'é\u00e9', 'quote " and \\', 'emoji 😀🙂', 'new\nline', '<|end', 'tab\t']);
      if (k === 1) return pick([0, -1, 3.25, 1e21, -0.5, 12345678901234567890, 7e-7]);
      if (k === 2) return pick([true, false, null]);
      if (k === 3) return pick(['x', 42]);
      if (k === 4) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--) o[pick(['a', 'b', 'key', 'ü', 'x y'])] = value(depth + 1);
      return o;
    };
    const spaced = (v: unknown): string => JSON.stringify(v, null, pick([1, 2, '\t']));
    for (let i = 0; i < 120; i++) {
      const v = { args: value(0) };
      const compact = JSON.stringify(v);
      const variant = i % 4;
      const raw =
        variant === 0 ? compact : variant === 1 ? spaced(v) : variant === 2 ? compact.slice(0, Math.floor(next() * compact.length)) : `${compact} trailing`;
      const text = `<|channel|>analysis<|message|>t<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>${raw}${pick(['<|call|>', '', '<|end|>'])}`;
      const expected = variant < 2 ? compact : raw;
      expect(parsed(text).calls).toEqual([{ name: 'f', arguments: expected }]);
      expectSplitInvariant(text, randomSplits(text, 8, i + 1, 6));
    }
  });
});

describe('Harmony channel parser: user stop strings on final text', () => {
  const TEXT =
    '<|channel|>analysis<|message|>I will say END here but it is reasoning.<|end|><|start|>assistant<|channel|>commentary<|message|>Preamble END too<|end|>' +
    '<|start|>assistant<|channel|>final<|message|>The answer is 42. END and more text<|return|>';
  const withStops = (stops: string[]) => () => ({ finalStops: new StopStringMatcher(stops, { includeStop: true }) });

  it('stops in the final channel only, keeping the stop as suffix', () => {
    const o = withStops(['END']);
    const parser = new HarmonyChannelParser(o());
    const items = [...parser.push(TEXT), ...parser.finish()];
    expect(parser.stopMatched).toBe(true);
    expect(foldItems(items)).toEqual(out('Preamble END too\nThe answer is 42. END', 'I will say END here but it is reasoning.'));
    expectSplitInvariant(TEXT, randomSplits(TEXT, 100, 7, 5), o);
  });

  it('ignores everything after the stop, and releases held text when nothing matches', () => {
    const parser = new HarmonyChannelParser(withStops(['42'])());
    parser.push(`${TEXT}<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}`);
    expect(parser.stopMatched).toBe(true);
    expect(parser.push('more')).toEqual([]);
    expect(parser.finish()).toEqual([]);

    const none = withStops(['and more text!']);
    expect(parsed(TEXT, none).text).toBe('Preamble END too\nThe answer is 42. END and more text');
    expectSplitInvariant(TEXT, randomSplits(TEXT, 60, 3, 4), none);
  });
});
