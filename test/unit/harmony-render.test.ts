import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HarmonyRenderError, harmonyReasoningEffort, renderHarmonyPrompt } from '../../src/pipeline/harmony/index.js';
import { renderMessage } from '../../src/pipeline/harmony/message.js';
import type { HarmonyChatMessage, HarmonyFunctionTool, HarmonyRenderOptions } from '../../src/pipeline/harmony/types.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { ensureTokenizerFixture } from '../support/tokenizer-fixtures.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'harmony');

/** A fixture: provenance lines, `---`, then the expected prompt (trailing whitespace trimmed, as the reference's loader does). */
function fixture(name: string): string {
  const text = readFileSync(join(FIXTURES, name), 'utf8');
  const at = text.indexOf('\n---\n');
  if (at === -1 || !text.slice(0, at).startsWith('source: ')) throw new Error(`${name}: missing source header`);
  return text.slice(at + 5).replace(/\s+$/, '');
}

const fn = (name: string, description?: string, parameters?: unknown): HarmonyFunctionTool => ({
  type: 'function',
  function: { name, ...(description !== undefined && { description }), ...(parameters !== undefined && { parameters }) },
});

const WEATHER_TOOLS: HarmonyFunctionTool[] = [
  fn('get_location', 'Gets the location of the user.'),
  fn('get_current_weather', 'Gets the current weather in the provided location.', {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
      format: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
    },
    required: ['location'],
  }),
  fn('get_multiple_weathers', 'Gets the current weather in the provided list of locations.', {
    type: 'object',
    properties: {
      locations: {
        type: 'array',
        items: { type: 'string' },
        description: 'List of city and state, e.g. ["San Francisco, CA", "New York, NY"]',
      },
      format: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
    },
    required: ['locations'],
  }),
];

const KITCHENSINK = fn('kitchensink', 'A function with various complex schemas.', {
  description: 'params object',
  type: 'object',
  properties: {
    string: { type: 'string', title: 'STRING', description: 'A string', examples: ['hello', 'world'] },
    string_nullable: { type: 'string', nullable: true, description: 'A nullable string', default: 'the default' },
    string_enum: { type: 'string', enum: ['a', 'b', 'c'] },
    oneof_string_or_number: {
      oneOf: [
        { type: 'string', default: 'default_string_in_oneof' },
        { type: 'number', description: 'numbers can happen too' },
      ],
      description: 'a oneof',
      default: 20,
    },
  },
});

const NESTED_TOOLS: HarmonyFunctionTool[] = [
  fn('create_event', 'Creates a calendar event.\nReturns the new event id.', {
    type: 'object',
    properties: {
      title: { type: 'string', description: 'Short title' },
      when: {
        type: 'object',
        description: 'Start and end',
        properties: { start: { type: 'string', description: 'ISO 8601 start' }, end: { type: 'string' } },
        required: ['start'],
      },
      attendees: {
        type: 'array',
        description: 'People to invite',
        items: { type: 'object', properties: { email: { type: 'string' }, optional: { type: 'boolean', default: false } }, required: ['email'] },
      },
      tags: { type: 'array', items: { type: 'string', enum: ['work', 'personal'] } },
      priority: { type: 'integer', default: 3 },
      visibility: { type: 'string', enum: ['public', 'private'], default: 'private' },
      location: { type: ['string', 'null'] },
      reminder: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'Minutes before' },
    },
    required: ['title', 'when'],
  }),
  fn('ping', 'Checks the service.', { type: 'object', properties: {} }),
  fn('get_time'),
];

const ROBOT = "Answer the user's questions like a robot.";
const CAPITAL = 'What is the capital of the largest country in the world?';

const CASES: Array<{ file: string; options: HarmonyRenderOptions }> = [
  { file: 'plain-user-turn.txt', options: { messages: [{ role: 'user', content: 'What is 2 + 2?' }], currentDate: null } },
  { file: 'no-messages-with-date.txt', options: { messages: [], currentDate: '2025-06-28' } },
  {
    file: 'instructions-high-effort.txt',
    options: { messages: [{ role: 'system', content: ROBOT }, { role: 'user', content: CAPITAL }], reasoningEffort: 'high', currentDate: null },
  },
  {
    file: 'instructions-high-effort.txt',
    options: { messages: [{ role: 'developer', content: ROBOT }, { role: 'user', content: CAPITAL }], reasoningEffort: 'high', currentDate: null },
  },
  {
    file: 'instructions-low-effort.txt',
    options: {
      messages: [{ role: 'system', content: [{ type: 'text', text: ROBOT }] }, { role: 'user', content: CAPITAL }],
      reasoningEffort: 'low',
      currentDate: null,
    },
  },
  {
    file: 'dates-without-commentary.txt',
    options: {
      messages: [{ role: 'user', content: 'What is 42 * pi?' }],
      knowledgeCutoff: '2021-01',
      currentDate: '2021-01-01',
      omitCommentaryWithoutTools: true,
    },
  },
  {
    file: 'functions-with-parameters.txt',
    options: {
      messages: [{ role: 'system', content: 'Always respond in riddles' }, { role: 'user', content: 'What is the weather like in SF?' }],
      tools: [...WEATHER_TOOLS, KITCHENSINK],
      reasoningEffort: 'high',
      currentDate: '2025-06-28',
    },
  },
  {
    file: 'nested-tools.txt',
    options: { messages: [{ role: 'user', content: 'Book lunch with Ana tomorrow.' }], tools: NESTED_TOOLS, currentDate: '2025-06-28' },
  },
  {
    file: 'tool-call-round-trip.txt',
    options: {
      messages: [
        { role: 'system', content: 'Use a friendly tone.' },
        { role: 'user', content: 'What is the weather like in SF?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Need to use function get_weather.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"sunny": true, "temperature": 20}' },
      ],
      tools: WEATHER_TOOLS,
      reasoningEffort: 'high',
      currentDate: '2025-06-28',
    },
  },
  {
    file: 'multi-turn-drop-analysis.txt',
    options: {
      messages: [
        { role: 'user', content: 'What is 2 + 2?' },
        { role: 'assistant', reasoning_content: 'User asks: “What is 2 + 2?” Simple arithmetic. Provide answer.', content: '2 + 2 equals 4.' },
        { role: 'user', content: 'What about 9 / 2?' },
      ],
      currentDate: null,
    },
  },
  {
    file: 'keep-analysis-between-finals-reference.txt',
    options: {
      messages: [
        { role: 'user', content: 'What is 2 + 2?' },
        { role: 'assistant', reasoning_content: 'thinking 2+2', content: '4' },
        { role: 'user', content: 'What is 3 + 5?' },
        { role: 'assistant', reasoning_content: 'thinking 3+5', content: '8' },
      ],
      cotDrop: 'reference',
      currentDate: null,
    },
  },
];

const SPECIAL = /<\|(?:start|end|message|channel|constrain|return|call)\|>/g;

describe('Harmony prompt rendering against reference strings', () => {
  let tok: LoadedTokenizer;
  beforeAll(async () => {
    tok = await loadTokenizer(ensureTokenizerFixture('gptoss'));
  }, 120_000);

  /**
   * What the reference renderer emits: each formatting token as its own id, the text between them
   * encoded as ordinary text (encoding.rs render_formatting_token_into / render_text_into).
   */
  function piecewise(text: string): number[] {
    const ids: number[] = [];
    let last = 0;
    for (const m of text.matchAll(SPECIAL)) {
      if (m.index > last) ids.push(...tok.encode(text.slice(last, m.index), false));
      ids.push(tok.tokenToId(m[0]) as number);
      last = m.index + m[0].length;
    }
    if (last < text.length) ids.push(...tok.encode(text.slice(last), false));
    return ids;
  }

  it.each(CASES.map((c, i) => [`${c.file} #${i}`, c] as const))('%s', (_name, { file, options }) => {
    const expected = fixture(file);
    const rendered = renderHarmonyPrompt(options);
    expect(rendered).toBe(expected);
    const ids = tok.encode(rendered, false);
    expect(ids).toEqual(tok.encode(expected, false));
    expect(ids).toEqual(piecewise(expected));
    // Every formatting token became its single special id (none was spelled out as text).
    const starts = (expected.match(/<\|start\|>/g) ?? []).length;
    expect(ids.filter((id) => id === 200006)).toHaveLength(starts);
    expect(ids[0]).toBe(200006);
    expect(ids.slice(-2)).toEqual([200006, tok.encode('assistant', false)[0]]);
  });

  it('encodes <|constrain|> inside a tool-call header as the special token (test_tool_call_with_constrain_tokenized_correctly)', () => {
    const ids = tok.encode(fixture('tool-call-round-trip.txt'), false);
    expect(ids.filter((id) => id === 200003)).toHaveLength(1);
    expect(ids.filter((id) => id === 200012)).toHaveLength(1);
  });
});

describe('Harmony conversation rules', () => {
  const base = { currentDate: null } as const;
  const conversation = (o: HarmonyRenderOptions): string => {
    const out = renderHarmonyPrompt(o);
    return out.slice(out.indexOf('<|end|>') + '<|end|>'.length);
  };

  it('renders a past tool call with the recipient in the role position when asked, as the reference renders it', () => {
    // tests/test_harmony.py test_tool_call_with_constrain_tokenized_correctly: rendered == the text.
    expect(
      renderMessage(
        {
          role: 'assistant',
          author: 'assistant',
          channel: 'commentary',
          recipient: 'functions.get_weather',
          contentType: '<|constrain|>json',
          content: '{"location": "Tokyo"}',
        },
        'role',
      ),
    ).toBe('<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"location": "Tokyo"}<|call|>');
  });

  it('drops analysis before the last final message and keeps it after (default rule)', () => {
    const messages: HarmonyChatMessage[] = [
      { role: 'user', content: 'q1' },
      { role: 'assistant', reasoning_content: 'r1', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', reasoning_content: 'r2', content: 'a2' },
      { role: 'user', content: 'q3' },
      { role: 'assistant', reasoning_content: 'r3', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'ok' },
    ];
    expect(conversation({ ...base, messages })).toBe(
      '<|start|>user<|message|>q1<|end|><|start|>assistant<|channel|>final<|message|>a1<|end|>' +
        '<|start|>user<|message|>q2<|end|><|start|>assistant<|channel|>final<|message|>a2<|end|>' +
        '<|start|>user<|message|>q3<|end|><|start|>assistant<|channel|>analysis<|message|>r3<|end|>' +
        '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>' +
        '<|start|>functions.f to=assistant<|channel|>commentary<|message|>ok<|end|><|start|>assistant',
    );
    // The reference's own rule (last assistant message is not final) keeps everything here.
    expect(conversation({ ...base, messages, cotDrop: 'reference' })).toContain('<|channel|>analysis<|message|>r1<|end|>');
    expect(conversation({ ...base, messages, cotDrop: 'none' })).toContain('<|channel|>analysis<|message|>r2<|end|>');
  });

  it('writes several calls, a preamble, and results named through tool_call_id', () => {
    const out = conversation({
      ...base,
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            { id: 'a', function: { name: 'one', arguments: '{"x":1}' } },
            { id: 'b', function: { name: 'two', arguments: { y: [2] } } },
          ],
        },
        { role: 'tool', tool_call_id: 'b', content: [{ type: 'text', text: 'B' }] },
        { role: 'tool', tool_call_id: 'zzz', name: 'one', content: 'A' },
      ],
    });
    expect(out).toBe(
      '<|start|>user<|message|>q<|end|><|start|>assistant<|channel|>commentary<|message|>Checking both.<|end|>' +
        '<|start|>assistant<|channel|>commentary to=functions.one <|constrain|>json<|message|>{"x":1}<|call|>' +
        '<|start|>assistant<|channel|>commentary to=functions.two <|constrain|>json<|message|>{"y":[2]}<|call|>' +
        '<|start|>functions.two to=assistant<|channel|>commentary<|message|>B<|end|>' +
        '<|start|>functions.one to=assistant<|channel|>commentary<|message|>A<|end|><|start|>assistant',
    );
  });

  it('keeps later system/developer messages in place and skips empty assistant turns', () => {
    const out = conversation({
      ...base,
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: null },
        { role: 'developer', content: 'be brief' },
      ],
    });
    expect(out).toBe('<|start|>user<|message|>q<|end|><|start|>developer<|message|>be brief<|end|><|start|>assistant');
  });

  it('rejects a tool result that answers no call and has no name', () => {
    expect(() => renderHarmonyPrompt({ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] })).toThrow(HarmonyRenderError);
    expect(() => renderHarmonyPrompt({ messages: [{ role: 'wizard', content: 'x' }] })).toThrow(/unsupported message role 'wizard'/);
  });

  it("defaults: today's local date, medium effort, the reference identity and cutoff", () => {
    const now = new Date();
    const today = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
    const out = renderHarmonyPrompt({ messages: [] });
    expect(out).toBe(
      '<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n' +
        `Current date: ${today}\n\nReasoning: medium\n\n` +
        '# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|><|start|>assistant',
    );
  });

  it('maps request reasoning_effort values as SMG does', () => {
    expect(['high', 'medium', 'low', 'minimal', undefined, 'bogus'].map(harmonyReasoningEffort)).toEqual([
      'high',
      'medium',
      'low',
      'low',
      'medium',
      'medium',
    ]);
  });

  it('renders non-function tools and duplicate names only once, and no functions line without tools', () => {
    const out = renderHarmonyPrompt({
      ...base,
      messages: [],
      tools: [fn('a', 'x'), fn('a', 'second'), { type: 'web_search', function: { name: 'web' } }],
    });
    expect(out.match(/type a = /g)).toHaveLength(1);
    expect(out).not.toContain('web');
    expect(renderHarmonyPrompt({ ...base, messages: [], tools: [] })).not.toContain('Calls to these tools');
  });
});
