/**
 * Messages responses from synthetic generation events (no engine): the non-streaming block order
 * and stop_reason mapping, the exact streaming event sequence, mid-stream errors, and the official
 * SDK's own stream accumulator (`messages.stream().finalMessage()`, fed the encoder's SSE through a
 * stub fetch) rebuilding the same message the JSON path returns.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { messageJson } from '../../src/api/anthropic/collect.js';
import { collectChoices } from '../../src/pipeline/collect.js';
import { anthropicErrorResponse, asAnthropicError } from '../../src/api/anthropic/errors.js';
import type { MessagesMeta } from '../../src/api/anthropic/message-shape.js';
import { thinkingSignature } from '../../src/api/anthropic/thinking-signature.js';
import { messagesSse } from '../../src/api/anthropic/sse.js';
import { PipelineError, invalid } from '../../src/pipeline/errors.js';
import type { GenEvent } from '../../src/pipeline/events.js';
import { endEvent, eventStream, parseSse } from '../support/events.js';

/** The non-streaming answer, folded from an event stream as the pipeline's collector does. */
const collectMessage = async (evs: AsyncIterable<GenEvent>, meta: MessagesMeta) => messageJson(await collectChoices(evs, 1, 1), meta);

const meta = { id: 'msg_abc-1', model: 'qwen3', promptTokens: 12 };
const text = (t: string): GenEvent => ({ kind: 'text', index: 0, text: t, logprobs: null });
const reasoning = (t: string): GenEvent => ({ kind: 'reasoning', index: 0, text: t });
const toolStart = (tool: number, name: string, id = `call_${tool}abc`): GenEvent => ({ kind: 'tool_start', index: 0, tool, id, name });
const toolArgs = (tool: number, t: string): GenEvent => ({ kind: 'tool_args', index: 0, tool, text: t });
const end = (reason: 'stop' | 'length' | 'tool_calls' | 'abort', matchedStop: string | number | null = null): GenEvent =>
  endEvent(0, reason, { matchedStop, promptTokens: 12, completionTokens: 7 });

/** The encoder's whole SSE text for `events` (start, events, end or a failure). */
function sseText(events: GenEvent[], failure?: unknown): string {
  const enc = messagesSse(meta);
  let out = enc.start?.() ?? '';
  for (const ev of events) out += enc.event(ev);
  return out + (failure === undefined ? enc.end() : enc.error(failure));
}

/** `[event name, parsed data]` per frame; every frame's `event:` must equal its data's `type`. */
function frames(events: GenEvent[], failure?: unknown): [string, Record<string, unknown>][] {
  return parseSse(sseText(events, failure)).map((f) => {
    const data = JSON.parse(f.data) as Record<string, unknown>;
    expect(f.event).toBe(data.type);
    return [f.event as string, data];
  });
}

const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

const MESSAGE_START = {
  type: 'message_start',
  message: { id: 'msg_abc-1', type: 'message', role: 'assistant', content: [], model: 'qwen3', stop_reason: null, stop_sequence: null, usage: usage(12, 0) },
};

function messageDelta(stopReason: string, stopSequence: string | null = null) {
  return {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: stopSequence },
    usage: { output_tokens: 7, input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

describe('collectMessage (non-streaming)', () => {
  it('the §3.3 shape and key order for plain text', async () => {
    const body = await collectMessage(eventStream([text('Hello'), text(' there'), end('stop', 151645)]), meta);
    expect(JSON.stringify(body)).toBe(
      '{"id":"msg_abc-1","type":"message","role":"assistant","content":[{"type":"text","text":"Hello there"}],"model":"qwen3",' +
        '"stop_reason":"end_turn","stop_sequence":null,' +
        '"usage":{"input_tokens":12,"output_tokens":7,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}',
    );
  });

  it('blocks in order thinking → text → tool_use, ids call_ → toolu_, inputs parsed', async () => {
    const body = await collectMessage(
      eventStream([
        reasoning('Need the weather.'),
        text('Checking.'),
        toolStart(0, 'get_weather', 'call_0123456789abcdef01234567'),
        toolArgs(0, '{"city":'),
        toolArgs(0, '"Paris"}'),
        toolStart(1, 'get_time', 'functions.get_time:1'),
        toolArgs(1, 'not json'),
        end('tool_calls'),
      ]),
      meta,
    );
    expect(body.content).toEqual([
      { type: 'thinking', thinking: 'Need the weather.', signature: thinkingSignature('Need the weather.') },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_0123456789abcdef01234567', name: 'get_weather', input: { city: 'Paris' } },
      // Unparsable arguments become {}; ids of other styles (Kimi's) stay as they are.
      { type: 'tool_use', id: 'functions.get_time:1', name: 'get_time', input: {} },
    ]);
    expect(body.stop_reason).toBe('tool_use');
    expect(body.stop_sequence).toBeNull();
  });

  it('whitespace-only text is dropped', async () => {
    const body = await collectMessage(eventStream([reasoning('hmm'), text('\n\n'), toolStart(0, 'f'), toolArgs(0, '{}'), end('stop')]), meta);
    expect((body.content as { type: string }[]).map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    // A clean stop after a tool call is tool_use even when the finish said stop.
    expect(body.stop_reason).toBe('tool_use');
  });

  it('stop_reason: stop_sequence with the matched string; max_tokens on length; tool_use wins over length', async () => {
    const stopSeq = await collectMessage(eventStream([text('1, 2, '), end('stop', 'STOP')]), meta);
    expect([stopSeq.stop_reason, stopSeq.stop_sequence]).toEqual(['stop_sequence', 'STOP']);
    const length = await collectMessage(eventStream([text('1, 2, 3'), end('length')]), meta);
    expect([length.stop_reason, length.stop_sequence]).toEqual(['max_tokens', null]);
    const cut = await collectMessage(eventStream([toolStart(0, 'f'), toolArgs(0, '{"a":'), end('length')]), meta);
    expect(cut.stop_reason).toBe('tool_use');
    expect((cut.content as Record<string, unknown>[])[0].input).toEqual({});
    // EOS (a stop token id) is a natural end, not a stop sequence.
    const eos = await collectMessage(eventStream([text('x'), end('stop', 151645)]), meta);
    expect(eos.stop_reason).toBe('end_turn');
  });

  it('an empty answer has no blocks', async () => {
    const body = await collectMessage(eventStream([end('stop')]), meta);
    expect(body.content).toEqual([]);
  });
});

describe('messagesSse (streaming)', () => {
  it('text only: the exact frames, no [DONE]', () => {
    const raw = sseText([text('Hel'), text('lo'), end('stop')]);
    expect(raw).not.toContain('[DONE]');
    expect(raw.startsWith('event: message_start\ndata: {"type":"message_start","message":{"id":"msg_abc-1",')).toBe(true);
    expect(frames([text('Hel'), text('lo'), end('stop')])).toEqual([
      ['message_start', MESSAGE_START],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', messageDelta('end_turn')],
      ['message_stop', { type: 'message_stop' }],
    ]);
  });

  it('thinking → text: the thinking block closes before text opens at index 1', () => {
    expect(frames([reasoning('Let me '), reasoning('think.'), text('\n\n'), text('Answer.'), end('stop')])).toEqual([
      ['message_start', MESSAGE_START],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me ' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'think.' } }],
      // The signature of the whole thinking text, as the non-streaming block carries it.
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: thinkingSignature('Let me think.') } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
      // Held whitespace goes out with the first real text.
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: '\n\nAnswer.' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['message_delta', messageDelta('end_turn')],
      ['message_stop', { type: 'message_stop' }],
    ]);
  });

  it('text → two tool_use blocks with several input_json_deltas; stop_reason tool_use', () => {
    const events = [
      text('Checking.'),
      toolStart(0, 'get_weather', 'call_aaa'),
      toolArgs(0, '{"city"'),
      toolArgs(0, ': "Par'),
      toolArgs(0, 'is"}'),
      toolStart(1, 'get_time', 'call_bbb'),
      toolArgs(1, '{}'),
      end('tool_calls'),
    ];
    expect(frames(events)).toEqual([
      ['message_start', MESSAGE_START],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_aaa', name: 'get_weather', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city"' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ': "Par' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'is"}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_bbb', name: 'get_time', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 2 }],
      ['message_delta', messageDelta('tool_use')],
      ['message_stop', { type: 'message_stop' }],
    ]);
  });

  it('whitespace-only text before a tool call opens no block; stop sequence and max_tokens in message_delta', () => {
    const types = frames([text(' \n'), toolStart(0, 'f'), toolArgs(0, '{}'), end('stop')]).map(([, d]) =>
      d.type === 'content_block_start' ? `start:${(d.content_block as { type: string }).type}` : (d.type as string),
    );
    expect(types).toEqual(['message_start', 'start:tool_use', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(frames([text('a'), end('stop', 'STOP')]).at(-2)?.[1]).toEqual(messageDelta('stop_sequence', 'STOP'));
    expect(frames([text('a'), end('length')]).at(-2)?.[1]).toEqual(messageDelta('max_tokens'));
  });

  it('raw token-id events (for /generate) show nothing', () => {
    const tokens: GenEvent = { kind: 'tokens', index: 0, ids: [1, 2] };
    expect(sseText([tokens, text('a'), tokens, end('stop')])).toBe(sseText([text('a'), end('stop')]));
  });

  it('an empty answer still opens and closes the message', () => {
    expect(frames([end('stop')]).map(([e]) => e)).toEqual(['message_start', 'message_delta', 'message_stop']);
  });

  it('an error mid-stream: `event: error` in the Anthropic shape, nothing after it', () => {
    const raw = sseText([text('partial')], new Error('engine went away'));
    const all = parseSse(raw);
    expect(all.map((f) => f.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'error']);
    expect(JSON.parse(all.at(-1)!.data)).toEqual({ type: 'error', error: { type: 'api_error', message: 'Stream error: engine went away' } });
    expect(raw).not.toContain('[DONE]');
  });
});

/** An SDK client whose every request is answered by `answer` (nothing leaves the process). */
function stubClient(answer: () => Response): Anthropic {
  return new Anthropic({ apiKey: 'k', baseURL: 'http://stub.invalid', maxRetries: 0, fetch: async () => answer() });
}

const sseResponse = (body: string) => new Response(body, { headers: { 'content-type': 'text/event-stream' } });
const params = { model: 'qwen3', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('the official SDK reads what the encoders write', () => {
  const cases: [string, GenEvent[]][] = [
    ['text', [text('Hel'), text('lo'), end('stop')]],
    ['thinking → text', [reasoning('Think '), reasoning('hard.'), text('\n\n'), text('Done.'), end('stop')]],
    [
      'text → tool_use × 2',
      [text('Let me look.'), toolStart(0, 'get_weather'), toolArgs(0, '{"city":'), toolArgs(0, ' "Paris", "days": [1, 2]}'), toolStart(1, 'noop'), end('tool_calls')],
    ],
    ['stop sequence', [text('1, 2'), end('stop', 'STOP')]],
  ];
  for (const [name, events] of cases) {
    it(`messages.stream().finalMessage() equals the non-streaming body: ${name}`, async () => {
      const client = stubClient(() => sseResponse(sseText(events)));
      const streamed = JSON.parse(JSON.stringify(await client.messages.stream(params).finalMessage())) as Record<string, unknown>;
      // The SDK's structured-output helper adds its own `parsed_output` (null without output_config).
      expect(streamed.parsed_output).toBeNull();
      delete streamed.parsed_output;
      expect(streamed).toEqual(await collectMessage(eventStream(events), meta));
    });
  }

  it('an `event: error` frame makes the SDK raise an APIError of that type and message', async () => {
    const client = stubClient(() => sseResponse(sseText([text('partial')], new Error('boom'))));
    const err = await client.messages.stream(params).finalMessage().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).type).toBe('api_error');
    expect((err as InstanceType<typeof Anthropic.APIError>).apiMessage).toBe('Stream error: boom');
  });

  it('a pipeline error reaches the SDK as the matching error class with its message', async () => {
    const client = stubClient(() => anthropicErrorResponse(invalid('max_tokens: field is required'), 'msg_r1'));
    const err = await client.messages.create(params).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    const e = err as InstanceType<typeof Anthropic.BadRequestError>;
    expect(e.type).toBe('invalid_request_error');
    expect(e.apiMessage).toBe('max_tokens: field is required');
  });
});

describe('error envelopes', () => {
  it('pipeline errors: Anthropic type per status, request id, SMG code header', async () => {
    const cases: [PipelineError, string][] = [
      [invalid('bad'), 'invalid_request_error'],
      [new PipelineError(404, 'model_not_found', "No worker available for model 'x'"), 'not_found_error'],
      [new PipelineError(503, 'tokenizer_not_ready', 'not yet'), 'overloaded_error'],
      [new PipelineError(500, 'worker_stream_failed', 'boom'), 'api_error'],
      [new PipelineError(409, 'request_id_in_flight', 'dup'), 'invalid_request_error'],
    ];
    for (const [err, type] of cases) {
      const res = anthropicErrorResponse(err, 'req-1');
      expect(res.status).toBe(err.status);
      expect(await res.json()).toEqual({ type: 'error', error: { type, message: err.message }, request_id: 'req-1' });
      expect(res.headers.get('x-smg-error-code')).toBe(err.code);
    }
  });

  it("the gateway's own refusals are re-encoded; Anthropic bodies and successes pass through", async () => {
    const unauth = await asAnthropicError(new Response(null, { status: 401 }), 'r');
    expect(unauth.status).toBe(401);
    expect(await unauth.json()).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: 'r' });
    // The SMG code goes in the header, as on the OpenAI paths.
    expect(unauth.headers.get('x-smg-error-code')).toBe('invalid_api_key');
    const tooBig = await asAnthropicError(new Response('Failed to buffer the request body: length limit exceeded', { status: 413 }), 'r');
    expect(await tooBig.json()).toMatchObject({ error: { type: 'request_too_large', message: 'Failed to buffer the request body: length limit exceeded' } });
    const busy = await asAnthropicError(
      Response.json({ error: { type: 'Too Many Requests', code: 'too_many_requests', message: 'queue full', param: null } }, { status: 429, headers: { 'X-SMG-Error-Code': 'too_many_requests' } }),
      'r',
    );
    expect(busy.headers.get('x-smg-error-code')).toBe('too_many_requests');
    expect(await busy.json()).toMatchObject({ error: { type: 'rate_limit_error', message: 'queue full' } });
    const ours = anthropicErrorResponse(invalid('x'), 'r');
    expect(await asAnthropicError(ours, 'r')).toBe(ours);
    const ok = new Response('fine');
    expect(await asAnthropicError(ok, 'r')).toBe(ok);
  });
});
