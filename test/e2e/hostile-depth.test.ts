/**
 * Bodies nested far past any real client's, to every route that reads JSON, against `smg launch` +
 * a mock engine over real sockets. Each is refused 400 in its API's own envelope before anything
 * walks it (JSON.stringify, templates, schema checks overflowed the stack at 5,000 levels and one
 * streaming /v1/responses request killed the process), and the gateway serves on afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rig, startRig } from './support/rig.js';
import { jsonDepthProblem } from '../../src/util/json-depth.js';

/** `depth` nested objects around a 1 as JSON text: `{"a":{"a":…1…}}`. */
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const DEEP = 5000;

/** `base` as JSON with the string "<DEEP>" replaced by raw JSON text. */
function bodyWith(base: unknown, raw: string): string {
  return JSON.stringify(base).replace('"<DEEP>"', raw);
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('hostile nesting (e2e)', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.stop();
  });

  async function post(path: string, body: string): Promise<Answer> {
    const r = await fetch(`${rig.gatewayURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  }

  function expectOpenAi400(a: Answer, text: RegExp): void {
    expect(a.status).toBe(400);
    const err = a.body.error as Record<string, unknown>;
    expect(err.type).toBe('invalid_request_error');
    expect(String(err.message)).toMatch(text);
  }

  function expectAnthropic400(a: Answer): void {
    expect(a.status).toBe(400);
    expect(a.body.type).toBe('error');
    const err = a.body.error as Record<string, unknown>;
    expect(err.type).toBe('invalid_request_error');
    expect(String(err.message)).toMatch(/recursion limit exceeded at line 1 column \d+/);
  }

  const RECURSION = /^JSON syntax error: recursion limit exceeded at line 1 column \d+$/;

  it('every route refuses a body nested 5,000 deep with a 400 in its own envelope, and the gateway serves on', async () => {
    const model = rig.model;
    const user = [{ role: 'user', content: 'hi' }];
    const cases: Array<[string, string, (a: Answer) => void]> = [
      ['/v1/responses', bodyWith({ model, input: 'hi', stream: true, metadata: '<DEEP>' }, deepObject(DEEP)), (a) => expectOpenAi400(a, RECURSION)],
      ['/v1/responses', bodyWith({ model, input: 'hi', metadata: '<DEEP>' }, deepObject(DEEP)), (a) => expectOpenAi400(a, RECURSION)],
      [
        '/v1/chat/completions',
        bodyWith({ model, messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: '<DEEP>' } }] }, deepObject(DEEP)),
        (a) => expectOpenAi400(a, RECURSION),
      ],
      ['/v1/chat/completions', bodyWith({ model, messages: user, stream: true, user: '<DEEP>' }, deepArray(DEEP)), (a) => expectOpenAi400(a, RECURSION)],
      ['/v1/completions', bodyWith({ model, prompt: '<DEEP>' }, deepArray(DEEP)), (a) => expectOpenAi400(a, RECURSION)],
      [
        '/v1/messages',
        bodyWith(
          { model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: '<DEEP>' }] }] },
          deepObject(DEEP),
        ),
        expectAnthropic400,
      ],
      [
        '/v1/messages/count_tokens',
        bodyWith({ model, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: '<DEEP>' }] }] }, deepObject(DEEP)),
        expectAnthropic400,
      ],
      ['/generate', bodyWith({ model, text: 'hi', sampling_params: { max_new_tokens: 4, json_schema: '<DEEP>' } }, deepObject(DEEP)), (a) => expectOpenAi400(a, RECURSION)],
      ['/tokenize', bodyWith({ model, prompt: '<DEEP>' }, deepArray(DEEP)), (a) => expectOpenAi400(a, RECURSION)],
      ['/detokenize', bodyWith({ model, tokens: '<DEEP>' }, deepArray(DEEP)), (a) => expectOpenAi400(a, RECURSION)],
    ];
    for (const [path, body, check] of cases) {
      const a = await post(path, body);
      try {
        check(a);
      } catch (err) {
        throw new Error(`${path}: ${JSON.stringify(a).slice(0, 300)}\n${(err as Error).message}`);
      }
    }

    // JSON inside a string field is parsed by the gateway too, and bounded the same way.
    const schemaText = await post('/generate', JSON.stringify({ model, text: 'hi', sampling_params: { max_new_tokens: 4, json_schema: deepObject(DEEP) } }));
    expectOpenAi400(schemaText, /^sampling_params\.json_schema: .*recursion limit exceeded/);
    const args = await post(
      '/v1/chat/completions',
      JSON.stringify({
        model,
        messages: [...user, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: deepObject(DEEP) } }] }],
      }),
    );
    expect(args.status).toBe(400);
    expect(JSON.stringify(args.body)).toMatch(/recursion limit exceeded/);

    // The workers API: its own envelope.
    const w = await post('/workers', bodyWith({ url: '<DEEP>' }, deepArray(DEEP)));
    expect(w.status).toBe(400);
    expect((w.body.error as Record<string, unknown>).code).toBe('json_parse_error');

    // Still serving: probes and a real generation.
    expect((await fetch(`${rig.gatewayURL}/health`)).status).toBe(200);
    const ok = await rig.openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 });
    expect(ok.choices[0].finish_reason).toBe('length');
    expect(rig.gatewayOutput()).not.toMatch(/Maximum call stack/);
  });

  it("127 levels parse (serde_json's limit, as SMG); the 128th container is refused", async () => {
    // The body object is level 1, `x` and the arrays inside it levels 2-127.
    const ok = await post(
      '/v1/chat/completions',
      bodyWith({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, logit_bias: null, stop: null, x: '<DEEP>' }, deepArray(126)),
    );
    expect(ok.status).toBe(200);
    const refused = await post('/v1/chat/completions', bodyWith({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, x: '<DEEP>' }, deepArray(127)));
    expectOpenAi400(refused, /^JSON syntax error: recursion limit exceeded at line 1 column \d+$/);
  });

  it('a body over 64K characters (parsed a slice per turn) gets the same answers: refusal text and column, a long prompt served', async () => {
    const model = rig.model;
    const pad = 'lorem ipsum dolor '.repeat(5000);
    const deep = bodyWith({ model, messages: [{ role: 'user', content: pad }], user: '<DEEP>' }, deepArray(200));
    expect(deep.length).toBeGreaterThan(64 * 1024);
    expectOpenAi400(await post('/v1/chat/completions', deep), new RegExp(`^JSON syntax error: ${jsonDepthProblem(deep)}$`));
    // Floats (temperature) make the body keep its Python form; the prompt (within the rig's 4,096
    // tokens: the body is long by its JSON whitespace) is counted as a short body's would be.
    const long = { model, messages: [{ role: 'user', content: pad.slice(0, 6000) }], max_tokens: 1, temperature: 0.7 };
    const spaced = `{${' '.repeat(70_000)}${JSON.stringify(long).slice(1)}`;
    const served = await post('/v1/chat/completions', spaced);
    expect(served.status, JSON.stringify(served.body).slice(0, 300)).toBe(200);
    const counted = await post('/tokenize', JSON.stringify({ model, messages: long.messages, add_special_tokens: false }));
    expect((served.body.usage as { prompt_tokens: number }).prompt_tokens).toBe((counted.body as { count: number }).count);
    expect((counted.body as { count: number }).count).toBeGreaterThan(1000);
  });

  it('Responses metadata is held to OpenAI’s bounds: 16 string pairs, keys ≤ 64, values ≤ 512 characters', async () => {
    const base = { model: rig.model, input: 'hi', max_output_tokens: 2 };
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = await post('/v1/responses', JSON.stringify({ ...base, metadata: many }));
    expectOpenAi400(tooMany, /^metadata: at most 16 key-value pairs, got 17$/);
    const nested = await post('/v1/responses', JSON.stringify({ ...base, metadata: { a: { b: 1 } } }));
    expectOpenAi400(nested, /^metadata\.a: must be a string$/);
    const long = await post('/v1/responses', JSON.stringify({ ...base, metadata: { a: 'x'.repeat(513) } }));
    expectOpenAi400(long, /^metadata\.a: at most 512 characters, got 513$/);
    const fine = await post('/v1/responses', JSON.stringify({ ...base, metadata: { ...Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'])), ['k'.repeat(64)]: undefined } }));
    expect(fine.status).toBe(200);
    expect(Object.keys(fine.body.metadata as object)).toHaveLength(16);
  });
});
