/**
 * Beyond one host: a front `smg launch` whose workers are two `smg serve` hosts (127.0.0.2 and
 * 127.0.0.3, one port). Every protocol, JSON and SSE, passes through the front unchanged; both
 * hosts take traffic; a host killed under load costs no request that had not started sending
 * (retried on the other host), a stream in flight on it ends with a clean error frame, and the
 * host is used again once it restarts.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeTcpPort } from '../../src/mock-engine/spawn.js';
import { TINY_MODEL, waitFor } from './support/proc.js';
import { hostReady, hostRequests, startFront, startHost, workerIs, type Front, type Host } from './support/hosts-kit.js';

let hosts: Host[] = [];
let front: Front;
let openai: OpenAI;

beforeAll(async () => {
  const port = await freeTcpPort();
  // 20 ms per token: a 100-token stream is in flight for ~2 s, long enough to kill its host under it.
  hosts = await Promise.all(['127.0.0.2', '127.0.0.3'].map((a) => startHost(a, port, ['--mock-token-delay-ms', '20'])));
  front = await startFront([
    '--worker-urls', ...hosts.map((h) => h.url),
    '--health-check-interval-secs', '1', '--health-check-endpoint', '/readiness',
    '--retry-initial-backoff-ms', '20', '--cb-timeout-duration-secs', '1', '--cb-failure-threshold', '2',
  ]);
  await Promise.all(hosts.map((h) => hostReady(h)));
  for (const h of hosts) await workerIs(front, h.url, 'ready');
  openai = new OpenAI({ baseURL: `${front.base}/v1`, apiKey: 'unused', maxRetries: 0 });
}, 90_000);

afterAll(async () => {
  await front?.cleanup();
  await Promise.all(hosts.map((h) => h.cleanup()));
});

const post = (path: string, body: unknown) =>
  fetch(`${front.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('front smg launch over two smg serve hosts (e2e)', () => {
  it('serves every protocol, JSON and SSE, with no tokenizer or model path of its own', async () => {
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toEqual([TINY_MODEL]);

    const chat = await openai.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 });
    expect(chat.choices[0].message.content).toMatch(/^Hel/);
    const chatStream = await openai.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, stream: true });
    let streamed = '';
    for await (const chunk of chatStream) streamed += chunk.choices[0]?.delta?.content ?? '';
    expect(streamed).toMatch(/^Hel/);

    const completion = await openai.completions.create({ model: TINY_MODEL, prompt: 'hi', max_tokens: 3 });
    expect(completion.choices[0].text).toMatch(/^Hel/);
    const completionStream = await openai.completions.create({ model: TINY_MODEL, prompt: 'hi', max_tokens: 3, stream: true });
    streamed = '';
    for await (const chunk of completionStream) streamed += chunk.choices[0]?.text ?? '';
    expect(streamed).toMatch(/^Hel/);

    const response = await openai.responses.create({ model: TINY_MODEL, input: 'hi', max_output_tokens: 3 });
    expect(response.output_text).toMatch(/^Hel/);
    const responseStream = await openai.responses.create({ model: TINY_MODEL, input: 'hi', max_output_tokens: 3, stream: true });
    const types: string[] = [];
    for await (const ev of responseStream) types.push(ev.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.incomplete');

    const anthropic = new Anthropic({ baseURL: front.base, apiKey: 'unused', maxRetries: 0 });
    const message = await anthropic.messages.create({ model: TINY_MODEL, max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Hel/) });
    const final = await anthropic.messages.stream({ model: TINY_MODEL, max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(final.stop_reason).toBe('max_tokens');
    const counted = await anthropic.messages.countTokens({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);

    const generate = (await (await post('/generate', { text: 'hi', sampling_params: { max_new_tokens: 3 } })).json()) as Array<{ text: string }>;
    expect(generate[0].text).toMatch(/^Hel/);
    const sse = await (await post('/generate', { text: 'hi', sampling_params: { max_new_tokens: 3 }, stream: true })).text();
    expect(sse.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const tokens = (await (await post('/tokenize', { model: TINY_MODEL, prompt: 'hi' })).json()) as { tokens: number[] };
    expect(tokens.tokens.length).toBe(2);
    const text = (await (await post('/detokenize', { model: TINY_MODEL, tokens: tokens.tokens })).json()) as { prompt: string };
    expect(text.prompt).toBe('hi');

    // The upstream's own status and error body come back as they were.
    const bad = await post('/v1/chat/completions', { model: TINY_MODEL, messages: [] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/messages cannot be empty/);
  });

  it('spreads conversations over both hosts', async () => {
    const before = await Promise.all(hosts.map((h) => hostRequests(h, '/v1/chat/completions')));
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        openai.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: `conversation ${i} ${'x'.repeat(40 * i)}` }], max_tokens: 2 }),
      ),
    );
    const after = await Promise.all(hosts.map((h) => hostRequests(h, '/v1/chat/completions')));
    expect(after[0] - before[0]).toBeGreaterThan(0);
    expect(after[1] - before[1]).toBeGreaterThan(0);
  });

  it('a client that disconnects mid-stream cancels the request on the host', async () => {
    const abort = new AbortController();
    const res = await fetch(`${front.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content: 'a long one' }], max_tokens: 200, stream: true }),
      signal: abort.signal,
    });
    await res.body!.getReader().read();
    const load = async (base: string) =>
      ((await (await fetch(`${base}/workers`)).json()) as { workers: Array<{ load: number }> }).workers.reduce((s, w) => s + w.load, 0);
    expect((await Promise.all(hosts.map((h) => load(h.url)))).reduce((a, b) => a + b)).toBe(1);
    abort.abort();
    // 200 tokens at 20 ms would take 4 s: the hosts and the front drop it long before.
    await waitFor('host load back to 0', async () => ((await Promise.all(hosts.map((h) => load(h.url)))).every((l) => l === 0) ? true : undefined), 2000);
    await waitFor('front load back to 0', async () => ((await load(front.base)) === 0 ? true : undefined), 2000);
  });

  it('a host killed under load: no request that had not started sending fails, streams on it end cleanly, and it comes back', async () => {
    const [victim, survivor] = hosts;
    // Streams with bytes already relayed, some on each host.
    const streams = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const res = await post('/v1/chat/completions', { model: TINY_MODEL, messages: [{ role: 'user', content: `stream ${i} ${'y'.repeat(50 * i)}` }], max_tokens: 100, stream: true });
        const reader = res.body!.getReader();
        const first = await reader.read();
        return { reader, text: new TextDecoder().decode(first.value) };
      }),
    );
    // JSON requests keep coming while the host dies: none may fail.
    let stop = false;
    const statuses: number[] = [];
    const load = Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let i = 0; !stop; i++) {
          const res = await post('/v1/chat/completions', { model: TINY_MODEL, messages: [{ role: 'user', content: `lane ${lane} request ${i}` }], max_tokens: 4 });
          statuses.push(res.status);
          await res.arrayBuffer();
        }
      }),
    );
    await waitFor('load running', () => (statuses.length >= 8 ? true : undefined));
    await victim.kill();
    const killedAt = statuses.length;
    await waitFor('load after the kill', () => (statuses.length >= killedAt + 30 ? true : undefined), 30_000);
    stop = true;
    await load;
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    const ends = await Promise.all(
      streams.map(async (s) => {
        let text = s.text;
        for (;;) {
          const r = await s.reader.read();
          if (r.done) break;
          text += new TextDecoder().decode(r.value);
        }
        return text;
      }),
    );
    const broken = ends.filter((t) => t.includes('Stream error: upstream'));
    const whole = ends.filter((t) => !t.includes('Stream error') && /"finish_reason":"(length|stop)"/.test(t));
    expect(broken.length).toBeGreaterThan(0);
    expect(broken.length + whole.length, ends.map((t) => t.slice(-300)).join('\n----\n')).toBe(ends.length);
    for (const t of ends) expect(t.endsWith('data: [DONE]\n\n')).toBe(true);
    for (const t of broken) expect(t).toContain(victim.url);

    // SMG's resilience metrics saw it: retries on the chat endpoint, the victim's breaker opened.
    const metrics = await (await fetch(front.metrics)).text();
    expect(Number(/^smg_worker_retries_total\{worker_type="regular",endpoint="chat"\} (\d+)/m.exec(metrics)?.[1] ?? 0)).toBeGreaterThan(0);
    expect(metrics).toContain(`smg_worker_cb_transitions_total{worker="${victim.url}",from="closed",to="open"} 1`);

    // The restarted host is probed back to ready and takes requests again.
    await victim.restart();
    await hostReady(victim);
    await workerIs(front, victim.url, 'ready');
    const before = await hostRequests(victim, '/v1/chat/completions');
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        openai.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: `back ${i} ${'z'.repeat(30 * i)}` }], max_tokens: 2 }),
      ),
    );
    expect(await hostRequests(victim, '/v1/chat/completions')).toBeGreaterThan(before);
    expect(await hostRequests(survivor, '/v1/chat/completions')).toBeGreaterThan(0);
  }, 60_000);
});
