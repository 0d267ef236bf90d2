/**
 * The sliced parse of large bodies (api/large-json-body.ts) against the one-go path it stands for
 * (json-depth.ts + python-json.ts): the same values, Python forms and error texts, with turns of
 * the event loop between its pieces.
 */
import { describe, expect, it } from 'vitest';
import { LARGE_BODY_CHARS, parseLargeJsonBody } from '../../src/api/large-json-body.js';
import { readJsonBody } from '../../src/api/json-body.js';
import { jsonDepthProblem, scanDepth, tooDeepAt } from '../../src/util/json-depth.js';
import { parseJsonText, pythonValue, pythonJsonText } from '../../src/pipeline/chat-prompt/template-compiler/python-json.js';

/** What the one-go path gives: the value, or the error message it throws. */
function oneGo(text: string): { value?: unknown; error?: string } {
  const deep = jsonDepthProblem(text);
  if (deep) return { error: `JSON syntax error: ${deep}` };
  try {
    return { value: parseJsonText(text) };
  } catch (err) {
    return { error: `JSON syntax error: ${(err as Error).message}` };
  }
}

async function sliced(text: string): Promise<{ value?: unknown; error?: string }> {
  try {
    return { value: await parseLargeJsonBody(text) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const prose = 'a long prompt with "quotes", \\ backslashes, [brackets] and {braces}\n'.repeat(2000);
const chat = (extra: Record<string, unknown>) => JSON.stringify({ model: 'm', messages: [{ role: 'user', content: prose }], ...extra });

describe('large JSON bodies', () => {
  it('give the values, Python forms and errors of the one-go path', async () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { x: { type: 'number', default: 1.0, maximum: 1e-7 } } } } }];
    const cases = [
      chat({ temperature: 0 }),
      // Floats and integer-like keys: the Python form is recorded beside the value.
      chat({ temperature: 0.7, tools, logit_bias: { '42': 1.0 } }).replace('"default":1', '"default":1.0'),
      // 2,000 messages: many containers and strings for the scans to slice.
      JSON.stringify({ model: 'm', messages: Array.from({ length: 2000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i} [{"x": 1.5}]` })) }),
      // A long conversation where only top-level fields are lossy (its messages are reused as
      // JSON.parse gave them), and lossy values deep inside: floats, integer-like keys, -0.
      JSON.stringify({ model: 'm', messages: Array.from({ length: 2000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}\n[{"x": 1.5}]` })), temperature: 0.7, top_p: 1 }),
      JSON.stringify({
        model: 'm',
        messages: Array.from({ length: 300 }, (_, i) =>
          i === 150 ? { role: 'tool', content: 'x', extra: { a: [1, { b: 'NEG0', c: 2 }], '7': { d: 1e21 } } } : { role: 'user', content: `m${i} ${'y'.repeat(200)}` },
        ),
        temperature: 1,
        logit_bias: { '42': 1, '7': 'NEG0' },
      })
        .replace('"d":1e+21', '"d":1.0e21')
        .replaceAll('"NEG0"', '-0'),
      // (JSON.stringify writes -0 as 0: the text gets it by replacement.)
      JSON.stringify({ a: [{ b: 'NEG0' }, { c: [0, 'NEG0', 1] }], pad: 'z'.repeat(LARGE_BODY_CHARS), t: 0.5 }).replaceAll('"NEG0"', '-0'),
      // Too deep after a long prefix: serde_json's text and position.
      `{"pad":"${'x'.repeat(LARGE_BODY_CHARS)}","a":${'['.repeat(200)}`,
      `{"pad":"${'x'.repeat(LARGE_BODY_CHARS)}",\n"a":${'{"b":'.repeat(150)}1${'}'.repeat(150)}}`,
      // Malformed: JSON.parse's own message.
      `${chat({})}x`,
      chat({}).slice(0, -1),
      // Not an object at all.
      JSON.stringify(prose),
    ];
    for (const text of cases) {
      expect(text.length).toBeGreaterThanOrEqual(LARGE_BODY_CHARS);
      const want = oneGo(text);
      const got = await sliced(text);
      expect(got.error).toBe(want.error);
      expect(got.value).toEqual(want.value);
      if (typeof want.value === 'object' && want.value !== null) {
        // The Python form a template sees (floats stay floats, key order as written).
        expect(pythonJsonText(got.value)).toBe(pythonJsonText(want.value));
        // Every container's Python form as a template reads it (pythonValue), level by level.
        const walk = (a: unknown, b: unknown): void => {
          const pa = pythonValue(a);
          const pb = pythonValue(b);
          expect(pa).toEqual(pb);
          if (typeof b === 'object' && b !== null) for (const k of Object.keys(b)) walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]);
        };
        walk(got.value, want.value);
      }
    }
    expect(oneGo(cases[6]).error).toMatch(/^JSON syntax error: recursion limit exceeded at line 1 column/);
    expect(oneGo(cases[8]).error).toMatch(/^JSON syntax error: /);
  });

  it('let the event loop turn between pieces', async () => {
    let turns = 0;
    let stop = false;
    const tick = () => {
      turns++;
      if (!stop) setImmediate(tick);
    };
    setImmediate(tick);
    await parseLargeJsonBody(chat({ temperature: 0.5 }));
    stop = true;
    // At least: before JSON.parse, before the number scan, before the Python parse.
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it('a depth scan resumed slice by slice ends where one scan does', () => {
    for (const text of [`{"s":"${'\\"['.repeat(5000)}","a":${'['.repeat(130)}`, JSON.stringify(Array.from({ length: 5000 }, () => ['"', { a: '\\' }]))]) {
      const scan = { i: 0, depth: 0, inString: false };
      let at = scanDepth(text, scan, 128, 0);
      let slices = 1;
      while (at === null) {
        at = scanDepth(text, scan, 128, 0);
        slices++;
      }
      expect(slices).toBeGreaterThan(10);
      expect(at).toBe(tooDeepAt(text));
    }
  });

  it('readJsonBody takes this path for a large body and keeps its errors', async () => {
    const req = (body: string) => new Request('http://x/', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await readJsonBody(req(chat({ n: 1 })))).toEqual(JSON.parse(chat({ n: 1 })));
    await expect(readJsonBody(req(`{"pad":"${'x'.repeat(LARGE_BODY_CHARS)}","a":${'['.repeat(200)}`))).rejects.toThrow(
      /^JSON syntax error: recursion limit exceeded at line 1 column 65677$/,
    );
  });
});
