/** Fake-engine side: decoding requests as strictly as msgspec + SamplingParams (spec §3.3, §3.9). */
import { describe, expect, it } from 'vitest';
import { decodeEngineInput, type EngineInput } from '../../src/mock-engine/wire/vllm/index.js';
import { encodeWith, type MsgpackWriter } from '../../src/engine/msgpack/writer.js';
import { addPayload, addWithSampling, frames } from './vllm-fixtures.js';

const ADD = Buffer.from([0]);

function add(payload: Buffer): EngineInput {
  return decodeEngineInput([ADD, payload]);
}

/** A sampling map with max_tokens 4 plus the given entries. */
function sampling(entries: (w: MsgpackWriter) => void, count: number): (w: MsgpackWriter) => void {
  return (w) => {
    w.mapHeader(count + 1).str('max_tokens').int(4);
    entries(w);
  };
}

function accepted(input: EngineInput): Extract<EngineInput, { kind: 'add' }>['request'] {
  if (input.kind !== 'add') throw new Error(`rejected: ${JSON.stringify(input)}`);
  return input.request;
}

describe('strict ADD decoding rejects (input thread dies)', () => {
  it.each([
    ['a float token id', addPayload({ 1: (w) => w.arrayHeader(3).int(1).float64(2).int(3) }), 'Expected `int`, got `float` - at `$[1][1]`'],
    ['a bin request_id', addPayload({ 0: (w) => w.bin(Buffer.from('req-1')) }), 'Expected `str`, got `bytes` - at `$[0]`'],
    ['8 elements', addPayload({}, 8), 'Expected `array` of at least length 9, got 8'],
    ['client_index 1', addPayload({ 11: (w) => w.int(1) }), 'client_index 1'],
    ['a bool priority', addPayload({ 13: (w) => w.bool(true) }), 'Expected `int`, got `bool` - at `$[13]`'],
    ['a str arrival_time', addPayload({ 5: (w) => w.str('now') }), 'Expected `float`, got `str` - at `$[5]`'],
    ['top_p = 0', addWithSampling(sampling((w) => w.str('top_p').float64(0), 1)), 'top_p must be in (0, 1]'],
    ['min_tokens > max_tokens', addWithSampling(sampling((w) => w.str('min_tokens').int(5), 1)), 'min_tokens must be less than or equal to max_tokens=4'],
    [
      'string logit_bias keys',
      addWithSampling(sampling((w) => w.str('logit_bias').mapHeader(1).str('5').float64(1), 1)),
      'Expected `int`, got `str` - at `key` in `$[3].logit_bias`',
    ],
    ['a float max_tokens', addWithSampling((w) => w.mapHeader(1).str('max_tokens').float64(4)), 'Expected `int`, got `float` - at `$[3].max_tokens`'],
    ['a bool top_k', addWithSampling(sampling((w) => w.str('top_k').bool(true), 1)), 'Expected `int`, got `bool` - at `$[3].top_k`'],
    ['a float top_k', addWithSampling(sampling((w) => w.str('top_k').float64(5), 1)), 'Expected `int`, got `float` - at `$[3].top_k`'],
    ['temperature 3', addWithSampling(sampling((w) => w.str('temperature').float64(3), 1)), 'temperature must be in [0, 2]'],
    ['max_tokens 0', addWithSampling((w) => w.mapHeader(1).str('max_tokens').int(0)), 'max_tokens must be at least 1'],
    ['an int sampling key', addWithSampling((w) => w.mapHeader(1).int(1).int(4)), 'Expected `str`, got `int` - at `key` in `$[3]`'],
    ['nil _all_stop_token_ids', addWithSampling(sampling((w) => w.str('_all_stop_token_ids').nil(), 1)), 'Expected `array`, got `null`'],
    ['output_kind 7', addWithSampling(sampling((w) => w.str('output_kind').int(7), 1)), 'Invalid enum value 7'],
    ['an empty stop string', addWithSampling(sampling((w) => w.str('stop').str(''), 1)), 'stop cannot contain an empty string'],
    ['greedy with n = 2', addWithSampling(sampling((w) => w.str('temperature').float64(0).str('n').int(2), 2)), 'n must be 1 when using greedy sampling'],
    [
      'two structured constraints',
      addWithSampling(sampling((w) => w.str('structured_outputs').mapHeader(2).str('regex').str('a').str('grammar').str('b'), 1)),
      'only use one kind',
    ],
    [
      'no structured constraint',
      addWithSampling(sampling((w) => w.str('structured_outputs').mapHeader(1).str('_backend').str('guidance'), 1)),
      'must use one kind',
    ],
    [
      'repetition detection with min_count 1',
      addWithSampling(
        sampling((w) => w.str('repetition_detection').mapHeader(2).str('max_pattern_size').int(3).str('min_count').int(1), 1),
      ),
      'min_count must be >= 2',
    ],
    ['nil sampling_params', addPayload({ 3: (w) => w.nil() }), 'sampling_params is required'],
    ['an unterminated payload', addPayload().subarray(0, 30), 'truncated'],
  ])('%s', (_name, payload, reason) => {
    const input = add(payload);
    expect(input.kind).toBe('input_dead');
    if (input.kind === 'input_dead') expect(input.reason).toContain(reason);
  });
});

describe('strict ADD decoding accepts what msgspec accepts', () => {
  it('21 elements (extra trailing ignored) and 9 elements (defaults)', () => {
    expect(accepted(add(addPayload({}, 20, [(w) => w.nil()]))).fieldCount).toBe(21);
    const short = accepted(add(addPayload({}, 9)));
    expect(short).toMatchObject({ fieldCount: 9, clientIndex: 0, priority: 0, resumable: false, abortImmediately: false });
  });

  it('a long prompt of ids in every uint form decodes to the ids; a stray float or negative among them is refused at its index', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => [0, 127, 128, 255, 256, 65535, 65536, 151_000, 2 ** 32 - 1][i % 9]);
    const ok = accepted(add(addPayload({ 1: (w) => w.uintArray(ids) })));
    expect(ok.promptTokenIds).toEqual(ids);
    const ints = (w: MsgpackWriter, xs: number[]) => xs.forEach((x) => w.int(x));
    const withFloat = addPayload({ 1: (w) => (ints(w.arrayHeader(1000), ids.slice(0, 500)), ints(w.float64(2), ids.slice(0, 499))) });
    expect(add(withFloat)).toMatchObject({ kind: 'input_dead', reason: expect.stringContaining('Expected `int`, got `float` - at `$[1][500]`') });
    // Negative ids are ints to msgspec (the engine's own checks come later): kept as they are.
    const withNegative = accepted(add(addPayload({ 1: (w) => (ints(w.arrayHeader(300), ids.slice(0, 299)), w.int(-5)) })));
    expect(withNegative.promptTokenIds?.slice(-2)).toEqual([ids[298], -5]);
  });

  it('ints for floats, float32 values, unknown keys', () => {
    const r = accepted(
      add(addWithSampling(sampling((w) => w.str('temperature').int(1).str('top_p').float32(0.5).str('future_knob').str('x'), 3))),
    );
    expect(r.sampling.temperature).toBe(1);
    expect(r.sampling.topP).toBe(0.5);
    expect(r.sampling.wireKeys).toContain('future_knob');
  });

  it('defaults: max_tokens 16 when absent, null when nil', () => {
    expect(accepted(add(addWithSampling((w) => w.mapHeader(0)))).sampling.maxTokens).toBe(16);
    expect(accepted(add(addWithSampling((w) => w.mapHeader(1).str('max_tokens').nil()))).sampling.maxTokens).toBeNull();
  });

  it('normalises like __post_init__', () => {
    const tiny = accepted(add(addWithSampling(sampling((w) => w.str('temperature').float64(0.005).str('seed').int(-1), 2))));
    expect(tiny.sampling.temperature).toBe(0.01);
    expect(tiny.sampling.seed).toBeNull();
    const greedy = accepted(
      add(addWithSampling(sampling((w) => w.str('temperature').float64(0).str('top_p').float64(0.5).str('top_k').int(5), 3))),
    );
    expect(greedy.sampling).toMatchObject({ topP: 1, topK: 0, minP: 0 });
    const stops = accepted(
      add(addWithSampling(sampling((w) => w.str('stop').str('END').str('stop_token_ids').intArray([3, 3, 4]).str('prompt_logprobs').int(0), 3))),
    );
    expect(stops.sampling).toMatchObject({ stop: ['END'], stopTokenIds: [3, 4], allStopTokenIds: [3, 4], skipReadingPrefixCache: true });
  });

  it('int-keyed logit_bias', () => {
    const r = accepted(add(addWithSampling(sampling((w) => w.str('logit_bias').mapHeader(1).int(5).float64(-1.5), 1))));
    expect(r.sampling.logitBias).toEqual(new Map([[5, -1.5]]));
  });
});

describe('other request types', () => {
  const msg = (type: number, write?: (w: MsgpackWriter) => void): Buffer[] =>
    write ? [Buffer.from([type]), encodeWith(write)] : [Buffer.from([type])];

  it('ABORT: a list, or a bare str; anything else kills the engine', () => {
    expect(decodeEngineInput(frames('R2').slice(1))).toEqual({ kind: 'abort', requestIds: ['req-1'] });
    expect(decodeEngineInput(msg(1, (w) => w.str('x')))).toEqual({ kind: 'abort', requestIds: ['x'] });
    expect(decodeEngineInput(msg(1, (w) => w.int(5))).kind).toBe('engine_dead');
  });

  it('START_DP_WAVE with an exclude rank; malformed is fatal (for lockstep engines)', () => {
    expect(decodeEngineInput(msg(2, (w) => w.arrayHeader(2).int(4).int(1)))).toEqual({ kind: 'start_wave', wave: 4, excludeRank: 1 });
    expect(decodeEngineInput(msg(2, (w) => w.arrayHeader(1).int(4)))).toMatchObject({ kind: 'engine_dead', requestType: 2 });
  });

  it('UTILITY with 3 elements kills the input thread', () => {
    expect(decodeEngineInput(msg(3, (w) => w.arrayHeader(3).int(0).int(1).str('m'))).kind).toBe('input_dead');
  });

  it('EXECUTOR_FAILED is fatal; WAKEUP without payload, unknown types and READY frames kill the input thread', () => {
    expect(decodeEngineInput(msg(4)).kind).toBe('engine_dead');
    expect(decodeEngineInput(msg(5)).kind).toBe('input_dead');
    expect(decodeEngineInput(msg(5, (w) => w.nil())).kind).toBe('wakeup');
    expect(decodeEngineInput(msg(9, (w) => w.nil())).kind).toBe('input_dead');
    expect(decodeEngineInput([Buffer.from('READY'), Buffer.alloc(0)]).kind).toBe('input_dead');
  });
});
