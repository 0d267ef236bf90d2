/**
 * The malformed-request corpus (test/e2e/support/bad-requests.ts), end to end against `smg
 * launch` and a mock engine of each dialect: every bad body gets its 4xx in its API's error shape,
 * the gateway stays up, and not one of them reaches the engine (the mock logs every ADD it
 * receives). A good request after every 25 bad ones proves the engine path still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type AnyRig, startAnyRig } from './support/any-rig.js';
import { type BadRequest, GOOD_REQUESTS, badRequests, oversizedRequests } from './support/bad-requests.js';
import { waitFor } from './support/proc.js';

const BATCH = 25;
/** Small, so context-length cases stay small bodies. */
const MAX_MODEL_LEN = 512;
/** Texts that would mean an internal failure leaked into a client error. */
const LEAKS = [/Cannot read propert/, /is not a function/, /Cannot call something/, /\[object Object\]/, /undefined/];

interface Outcome {
  name: string;
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

function addedCount(rig: AnyRig): number {
  return rig.engineLines().filter((l) => l.includes('request added: ')).length;
}

function withModel(text: string, model: string): string {
  return text.replaceAll('$MODEL', model);
}

async function send(rig: AnyRig, c: BadRequest): Promise<Outcome> {
  const body = c.raw !== undefined ? withModel(c.raw, rig.model) : c.body === undefined ? undefined : withModel(JSON.stringify(c.body), rig.model);
  const headers = c.headers ?? (body === undefined ? {} : { 'content-type': 'application/json' });
  const res = await fetch(`${rig.gatewayURL}${c.path}`, { method: c.method, headers, body });
  const text = await res.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { unparsable: text.slice(0, 200) };
  }
  return { name: c.name, status: res.status, body: parsed, headers: res.headers };
}

/** What is wrong with a refusal, or null when it is right. */
function problem(c: BadRequest, o: Outcome): string | null {
  if (o.status !== c.status) return `status ${o.status}, expected ${c.status}: ${JSON.stringify(o.body).slice(0, 300)}`;
  if (!(o.headers.get('content-type') ?? '').startsWith('application/json')) return `content-type ${o.headers.get('content-type')}`;
  let message: unknown;
  if (c.api === 'anthropic') {
    const e = o.body.error as Record<string, unknown> | undefined;
    if (o.body.type !== 'error' || typeof e?.type !== 'string' || typeof e.message !== 'string') return `not Anthropic's envelope: ${JSON.stringify(o.body)}`;
    if (typeof o.body.request_id !== 'string') return 'no request_id';
    message = e.message;
  } else {
    const e = o.body.error as Record<string, unknown> | undefined;
    const keys = e ? Object.keys(e).sort().join(',') : '';
    if (Object.keys(o.body).join(',') !== 'error' || keys !== 'code,message,param,type') return `not the OpenAI envelope: ${JSON.stringify(o.body)}`;
    if (typeof e!.code !== 'string' || typeof e!.type !== 'string' || (e!.param !== null && typeof e!.param !== 'string')) return `envelope types: ${JSON.stringify(e)}`;
    if (o.headers.get('x-smg-error-code') !== e!.code) return `X-SMG-Error-Code ${o.headers.get('x-smg-error-code')} ≠ code ${String(e!.code)}`;
    if (c.code !== undefined && e!.code !== c.code) return `code ${String(e!.code)}, expected ${c.code}: ${String(e!.message)}`;
    if (c.param !== undefined && e!.param !== c.param) return `param ${String(e!.param)}, expected ${c.param}: ${String(e!.message)}`;
    if (c.status < 500 && e!.type === 'server_error') return 'server_error type on a 4xx';
    message = e!.message;
  }
  if (typeof message !== 'string' || message.length === 0) return 'empty message';
  const leak = LEAKS.find((re) => re.test(message as string));
  if (leak) return `message leaks internals (${leak}): ${message}`;
  return null;
}

async function sendGood(rig: AnyRig, k: number): Promise<void> {
  const good = GOOD_REQUESTS[k % GOOD_REQUESTS.length];
  const res = await fetch(`${rig.gatewayURL}${good.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: withModel(JSON.stringify(good.body), rig.model),
  });
  const text = await res.text();
  expect(res.status, `good request ${good.path}: ${text.slice(0, 300)}`).toBe(200);
  expect(text).not.toMatch(/"error":\s*\{|event: error/);
}

describe.each(BACKENDS)('malformed-request corpus on %s', (backend) => {
  let rig: AnyRig;
  const cases = badRequests().filter((c) => c.only === undefined || c.only === backend);
  const dump: Array<{ name: string; status: number; error: unknown }> = [];

  beforeAll(async () => {
    // TokenSpeed with grammars and logprobs on: the good requests use them, and no bad one may
    // get as far as the engine's own admission refusal.
    const extra = backend === 'tokenspeed' ? ['--grammar-backend', 'xgrammar', '--enable-output-logprobs'] : [];
    rig = await startAnyRig(backend, { engineArgs: ['--max-model-len', String(MAX_MODEL_LEN), ...extra] });
  });
  afterAll(async () => {
    if (process.env.SMG_CORPUS_DUMP) {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(`${process.env.SMG_CORPUS_DUMP}.${backend}.json`, JSON.stringify(dump, null, 1));
    }
    await rig?.stop();
  });

  it(`refuses all ${cases.length} bad requests in their API's shape; none reaches the engine`, { timeout: 240_000 }, async () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    const failures: string[] = [];
    let goods = 0;
    for (let i = 0; i < cases.length; i += BATCH) {
      for (const c of cases.slice(i, i + BATCH)) {
        const o = await send(rig, c);
        dump.push({ name: c.name, status: o.status, error: o.body.error });
        const p = problem(c, o);
        if (p !== null) failures.push(`${c.name}: ${p}`);
      }
      // The gateway is alive, and the engine still serves: its request count moves by exactly one.
      expect((await fetch(`${rig.gatewayURL}/liveness`)).status).toBe(200);
      await sendGood(rig, goods);
      goods += 1;
      await waitFor('the good request at the engine', () => (addedCount(rig) >= goods ? true : undefined), 15_000, {
        detail: () => rig.engineLines().slice(-10).join('\n'),
      });
      const added = addedCount(rig);
      if (added !== goods) {
        failures.push(`after case ${Math.min(i + BATCH, cases.length)}: the engine received ${added - goods} bad request(s)`);
        goods = added;
      }
    }
    expect(failures).toEqual([]);
  });

  it('bodies over the size limit are a 413 in the same shapes', { timeout: 60_000 }, async () => {
    const before = addedCount(rig);
    for (const c of oversizedRequests()) {
      const o = await send(rig, c);
      expect(problem(c, o)).toBeNull();
    }
    await sendGood(rig, 0);
    await waitFor('the good request at the engine', () => (addedCount(rig) > before ? true : undefined), 15_000);
    expect(addedCount(rig)).toBe(before + 1);
  });
});
