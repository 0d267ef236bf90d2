/**
 * Operations users of SMG and vLLM expect, end to end through `smg launch` and the mock engine:
 * request `priority` on the wire, CORS (preflight before auth), vLLM's metric names beside SMG's,
 * and OpenTelemetry traces sent to a real OTLP/HTTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition, type Family } from '../support/prom-text.js';
import { promtoolProblems } from '../support/promtool.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { type Rig, startRig, uniqueRid, waitForEngineLine } from './support/rig.js';

const APP_ORIGIN = 'http://app.example';
const KEY = 'unused'; // the rig's openai client sends this key
let rig: Rig;
let otlp: OtlpReceiver;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  rig = await startRig({
    gatewayArgs: [
      '--api-key', KEY, '--cors-allowed-origins', APP_ORIGIN, '--allowed-origins', '["http://other.example"]',
      // No path: the gateway adds OTLP/HTTP's /v1/traces.
      '--otlp-traces-endpoint', otlp.url,
    ],
    // vLLM's flags: the mock simulates the prefix cache only when asked; a priority scheduler
    // running one request at a time at 20 ms a token lets requests queue in the engine.
    engineArgs: ['--enable-prefix-caching', '--scheduling-policy', 'priority', '--max-num-seqs', '1', '--mock-token-delay-ms', '20'],
  });
});
afterAll(async () => {
  await rig?.stop();
  await otlp?.close();
});

const auth = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
const post = (path: string, body: unknown, headers: Record<string, string> = auth) =>
  fetch(`${rig.gatewayURL}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

describe('request priority reaches the engine', () => {
  it('chat, completions, /generate and messages carry priority in EngineCoreRequest field 13', async () => {
    const cases: [string, (rid: string) => unknown, number][] = [
      ['/v1/chat/completions', (rid) => ({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, rid, priority: 7 }), 7],
      ['/v1/completions', (rid) => ({ model: rig.model, prompt: 'hi', max_tokens: 3, rid, priority: -3 }), -3],
      ['/generate', (rid) => ({ model: rig.model, text: 'hi', sampling_params: { max_new_tokens: 3 }, rid, priority: 2 }), 2],
      ['/v1/messages', (rid) => ({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, rid, priority: 4 }), 4],
      ['/v1/chat/completions', (rid) => ({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, rid }), 0],
    ];
    for (const [path, body, want] of cases) {
      const rid = uniqueRid('prio');
      const res = await post(path, body(rid));
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
      await res.text();
      const line = await waitForEngineLine(rig, 'request added', rid);
      expect(line, path).toContain(` priority=${want}`);
    }
  });

  it('a priority that is not a 32-bit integer is a 400 in the API shape; nothing is sent', async () => {
    for (const bad of [1.5, '3', 2 ** 31, true]) {
      const rid = uniqueRid('badprio');
      const res = await post('/v1/chat/completions', { model: rig.model, messages: [{ role: 'user', content: 'hi' }], rid, priority: bad });
      expect(res.status).toBe(400);
      const err = ((await res.json()) as { error: { message: string; param?: string } }).error;
      expect(err.message).toMatch(/^priority: must be (a number|an integer|in \[-2147483648, 2147483647\], got 2147483648)$/);
    }
    const res = await post('/v1/messages', { model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, priority: 0.5 });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'priority: must be an integer' } });
  });
});

describe('priority under a priority-scheduling engine', () => {
  it('the engine runs the lower priority value first, whatever the arrival order', async () => {
    // The rig's engine runs one request at a time at 20 ms a token: the next two wait in its queue.
    const ask = (rid: string, priority: number, max_tokens: number) =>
      rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens, rid, priority } as never);
    const [a, b, c] = [uniqueRid('busy'), uniqueRid('later'), uniqueRid('urgent')];
    const first = ask(a, 0, 12);
    await waitForEngineLine(rig, 'request added', a);
    const later = ask(b, 5, 2);
    await waitForEngineLine(rig, 'request added', b);
    const urgent = ask(c, -5, 2);
    await Promise.all([first, later, urgent]);
    const finished = rig.engine.lines.filter((l) => l.includes('request finished:')).map((l) => [a, b, c].find((id) => l.includes(id)));
    expect(finished.filter(Boolean)).toEqual([a, c, b]);
  });
});

describe('CORS', () => {
  const preflight = (origin: string, method = 'POST', headers = 'authorization, content-type, x-stainless-os') =>
    fetch(`${rig.baseURL}/chat/completions`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
    });

  it('a preflight is answered before auth (no key), for each configured origin', async () => {
    for (const origin of [APP_ORIGIN, 'http://other.example']) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type, x-stainless-os');
      expect(res.headers.get('access-control-max-age')).toBe('3600');
      expect(res.headers.get('vary')).toContain('Origin');
    }
  });

  it('a preflight from another origin, or for a method not allowed, is refused as vLLM (Starlette) does', async () => {
    const res = await preflight('http://evil.example');
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('Disallowed CORS origin');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const trace = await preflight(APP_ORIGIN, 'TRACE');
    expect(trace.status).toBe(400);
    expect(await trace.text()).toBe('Disallowed CORS method');
  });

  it('actual responses carry the CORS headers: JSON, a streamed SSE body, and a 401', async () => {
    const headers = { ...auth, Origin: APP_ORIGIN };
    const json = await post('/v1/chat/completions', { model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }, headers);
    const sse = await post('/v1/chat/completions', { model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, stream: true }, headers);
    const denied = await post('/v1/chat/completions', { model: rig.model, messages: [] }, { 'Content-Type': 'application/json', Origin: APP_ORIGIN });
    expect([json.status, sse.status, denied.status]).toEqual([200, 200, 401]);
    expect(await sse.text()).toContain('data: [DONE]');
    for (const res of [json, sse, denied]) {
      expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(res.headers.get('access-control-expose-headers')).toBe('x-request-id');
      expect(res.headers.get('vary')).toContain('Origin');
    }
    // Another page's origin, and a request with no Origin at all, get no CORS headers.
    const other = await post('/v1/chat/completions', { model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }, { ...auth, Origin: 'http://evil.example' });
    const plain = await fetch(`${rig.gatewayURL}/v1/models`, { headers: auth });
    for (const res of [other, plain]) {
      await res.text();
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});


const VLLM_FAMILIES = [
  'vllm:time_to_first_token_seconds',
  'vllm:inter_token_latency_seconds',
  'vllm:e2e_request_latency_seconds',
  'vllm:request_queue_time_seconds',
  'vllm:num_requests_running',
  'vllm:num_requests_waiting',
  'vllm:kv_cache_usage_perc',
  'vllm:prompt_tokens_total',
  'vllm:generation_tokens_total',
  'vllm:request_success_total',
  'vllm:prefix_cache_queries_total',
  'vllm:prefix_cache_hits_total',
  'vllm:request_params_n',
  'vllm:request_prompt_tokens',
  'vllm:request_generation_tokens',
  'vllm:request_params_max_tokens',
];

describe("vLLM's metric names", () => {
  const sum = (f: Family | undefined, name: string, labels: Record<string, string> = {}) =>
    (f?.samples ?? []).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);

  it('are served beside SMG\'s with model_name and engine labels, vLLM buckets, and promtool finds nothing to fix', async () => {
    // A prompt longer than a few KV blocks, sent twice: the second finds its blocks in the cache.
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    for (let i = 0; i < 2; i++) {
      const res = await post('/v1/chat/completions', { model: rig.model, messages: [{ role: 'user', content: long }], max_tokens: 8, stream: true });
      expect(await res.text()).toContain('data: [DONE]');
    }
    const text = await (await fetch(rig.metricsURL)).text();
    const { families, problems } = parseExposition(text);
    expect(problems).toEqual([]);
    for (const name of VLLM_FAMILIES) expect(families.has(name), name).toBe(true);
    expect(families.has('smg_router_ttft_seconds')).toBe(true);

    const model = { model_name: rig.model, engine: '0' };
    const ttft = families.get('vllm:time_to_first_token_seconds');
    expect(sum(ttft, 'vllm:time_to_first_token_seconds_count', model)).toBeGreaterThanOrEqual(2);
    // vLLM's TTFT boundaries, not SMG's.
    const les = ttft!.samples.filter((s) => s.name.endsWith('_bucket') && s.labels.engine === '0').map((s) => s.labels.le);
    expect(les.slice(0, 4)).toEqual(['0.001', '0.005', '0.01', '0.02']);
    expect(les.at(-2)).toBe('2560');
    expect(sum(families.get('vllm:inter_token_latency_seconds'), 'vllm:inter_token_latency_seconds_count', model)).toBeGreaterThanOrEqual(14);
    expect(sum(families.get('vllm:request_queue_time_seconds'), 'vllm:request_queue_time_seconds_count', model)).toBeGreaterThanOrEqual(2);
    expect(sum(families.get('vllm:request_success_total'), 'vllm:request_success_total', { ...model, finished_reason: 'length' })).toBeGreaterThanOrEqual(2);
    expect(sum(families.get('vllm:generation_tokens_total'), 'vllm:generation_tokens_total', model)).toBeGreaterThanOrEqual(16);
    const prompt = sum(families.get('vllm:prompt_tokens_total'), 'vllm:prompt_tokens_total', model);
    expect(prompt).toBeGreaterThanOrEqual(160);
    // From the engine's scheduler_stats: the second request hit the cached blocks of the first.
    const queries = sum(families.get('vllm:prefix_cache_queries_total'), 'vllm:prefix_cache_queries_total', model);
    const hits = sum(families.get('vllm:prefix_cache_hits_total'), 'vllm:prefix_cache_hits_total', model);
    expect(queries).toBeGreaterThanOrEqual(160);
    expect(hits).toBeGreaterThanOrEqual(64);
    expect(hits).toBeLessThan(queries);
    const running = families.get('vllm:num_requests_running')!.samples;
    expect(running[0].labels).toMatchObject(model);
    expect(families.get('vllm:kv_cache_usage_perc')!.samples[0].value).toBeGreaterThanOrEqual(0);

    // promtool (Debian `prometheus`), when installed: only the `:` of vLLM's names, one per family.
    const lint = promtoolProblems(text);
    if (lint) {
      expect(lint.problems).toEqual([]);
      expect(lint.vllmColonNames).toBe([...families.keys()].filter((n) => n.startsWith('vllm:')).length);
    }
  });
});

describe('OpenTelemetry traces', () => {
  const ms = (s: ReceivedSpan) => Number(s.endNs - s.startNs) / 1e6;

  it('a streamed chat request is one llm_request span under the caller\'s traceparent, with phase children and gen_ai attributes', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const rid = uniqueRid('trace');
    const res = await post(
      '/v1/chat/completions',
      { model: rig.model, messages: [{ role: 'user', content: 'Trace me' }], max_tokens: 6, stream: true, rid, priority: 3 },
      { ...auth, traceparent: `00-${traceId}-${callerSpan}-01` },
    );
    expect(await res.text()).toContain('data: [DONE]');

    const spans = await otlp.waitFor((all) => all.some((s) => s.traceId === traceId && s.name === 'llm_request'));
    expect(otlp.contentTypes.every((t) => t === 'application/x-protobuf')).toBe(true);
    const mine = spans.filter((s) => s.traceId === traceId);
    const root = mine.find((s) => s.name === 'llm_request')!;
    expect(root.parentSpanId).toBe(callerSpan);
    expect(root.kind).toBe(2); // SERVER
    expect(root.resource['service.name']).toBe('smg');
    expect(root.scope).toBe('smg');
    expect(root.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.response.model': rig.model,
      'gen_ai.request.id': rid,
      'gen_ai.request.max_tokens': 6,
      'gen_ai.request.n': 1,
      'gen_ai.usage.completion_tokens': 6,
      'gen_ai.usage.num_sequences': 1,
      'gen_ai.response.finish_reasons': ['length'],
      'smg.request.priority': 3,
      'smg.engine.rank': 0,
    });
    expect(root.attributes['gen_ai.usage.prompt_tokens']).toBeGreaterThan(5);
    for (const k of ['gen_ai.latency.time_to_first_token', 'gen_ai.latency.e2e', 'gen_ai.latency.time_in_queue']) {
      expect(typeof root.attributes[k], k).toBe('number');
    }

    const children = mine.filter((s) => s.parentSpanId === root.spanId);
    if (process.env.SMG_PRINT_TRACE) {
      const rel = (ns: bigint) => (Number(ns - root.startNs) / 1e6).toFixed(3);
      for (const sp of [root, ...children]) console.log(`${sp.name.padEnd(12)} start=+${rel(sp.startNs)}ms dur=${ms(sp).toFixed(3)}ms ${JSON.stringify(sp.attributes)}`);
    }
    const names = children.map((s) => s.name);
    for (const n of ['validation', 'template', 'tokenize', 'queue', 'first_token', 'stream']) expect(names, n).toContain(n);
    // Every child lies inside the request span, and the phases come in order.
    for (const c of children) {
      expect(c.startNs >= root.startNs && c.endNs <= root.endNs, `${c.name} ${c.startNs - root.startNs} ${c.endNs - root.endNs}`).toBe(true);
    }
    const at = (n: string) => children.find((s) => s.name === n)!;
    expect(at('validation').endNs <= at('template').startNs).toBe(true);
    expect(at('template').endNs <= at('tokenize').startNs).toBe(true);
    expect(at("first_token").endNs <= at("stream").startNs).toBe(true);
    expect(at("tokenize").endNs <= at("queue").startNs).toBe(true);
    expect(ms(at('stream'))).toBeGreaterThanOrEqual(0);
    // The engine's own queue time is the queue span's length.
    expect(Math.abs(ms(at('queue')) - (root.attributes['gen_ai.latency.time_in_queue'] as number) * 1000)).toBeLessThan(1);
  });

  it('a JSON (non-streamed) completion is traced with its status and usage once the answer is complete', async () => {
    const rid = uniqueRid('trace-json');
    const res = await post('/v1/completions', { model: rig.model, prompt: 'Trace me too', max_tokens: 4, rid });
    expect(res.status).toBe(200);
    await res.json();
    const spans = await otlp.waitFor((all) => all.some((s) => s.name === 'llm_request' && s.attributes['gen_ai.request.id'] === rid));
    const root = spans.find((s) => s.name === 'llm_request' && s.attributes['gen_ai.request.id'] === rid)!;
    expect(root.attributes).toMatchObject({ 'url.path': '/v1/completions', 'http.response.status_code': 200, 'gen_ai.usage.completion_tokens': 4 });
    const names = spans.filter((s) => s.parentSpanId === root.spanId).map((s) => s.name).sort();
    expect(names).toEqual(['first_token', 'queue', 'stream', 'tokenize', 'validation']);
  });

  it('a request without traceparent starts its own trace; a 400 is traced with its status', async () => {
    const before = otlp.spans.length;
    const res = await post('/v1/chat/completions', { model: rig.model, messages: [{ role: 'user', content: 'x' }], priority: 'high' });
    expect(res.status).toBe(400);
    const spans = await otlp.waitFor((all) => all.slice(before).some((s) => s.name === 'llm_request' && s.attributes['http.response.status_code'] === 400));
    const root = spans.slice(before).find((s) => s.name === 'llm_request' && s.attributes['http.response.status_code'] === 400)!;
    expect(root.parentSpanId).toBe('');
    const validation = spans.find((s) => s.parentSpanId === root.spanId && s.name === 'validation')!;
    expect(validation.status.code).toBe(2); // ERROR
    expect(validation.status.message).toBe('priority: must be a number');
  });
});
