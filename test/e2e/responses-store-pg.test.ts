/**
 * PostgreSQL as the shared history of a front tier: two gateways on one database serve each
 * other's chains and conversations, a gateway started after another stopped continues its chains
 * (restart-and-continue), and the database stopped under load gives a clear 503 to the requests
 * that need it while everything else keeps answering, until it is back and the gateways reconnect
 * on their own. The database is PGlite behind its wire-protocol server (support/pglite-server.ts).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyRig } from './support/any-rig.js';
import { MODEL, startHistoryRig } from './support/history-rig.js';
import { type PgServer, startPgServer } from './support/pglite-server.js';

const text = (r: OpenAI.Responses.Response) => r.output_text.trim();

async function post(rig: AnyRig, body: Record<string, unknown>): Promise<{ status: number; body: string }> {
  const res = await fetch(`${rig.gatewayURL}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, ...body }) });
  return { status: res.status, body: await res.text() };
}

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('postgres history shared by gateways (e2e)', () => {
  let pg: PgServer;
  const rigs: AnyRig[] = [];
  beforeAll(async () => {
    pg = await startPgServer();
  });
  afterAll(async () => {
    await Promise.all(rigs.map((r) => r.stop()));
    await pg?.close();
  });
  const start = async () => {
    const rig = await startHistoryRig('postgres', pg.url);
    rigs.push(rig);
    return rig;
  };

  it('two gateways continue each other\'s chains and conversations; a gateway started later continues them too', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const r1 = await a.openai.responses.create({ model: MODEL, input: 'My name is Ada.' });
    const r2 = await b.openai.responses.create({ model: MODEL, input: 'What is my name?', previous_response_id: r1.id });
    expect(text(r2)).toBe('Your name is Ada.');
    expect((await a.openai.responses.retrieve(r2.id)).output_text).toBe(r2.output_text);

    const conv = await b.openai.conversations.create({ items: [{ type: 'message', role: 'user', content: 'My name is Ada.' }, { type: 'message', role: 'assistant', content: 'Nice to meet you, Ada.' }] });
    const r3 = await a.openai.responses.create({ model: MODEL, input: 'What is my name?', conversation: conv.id });
    expect(text(r3)).toBe('Your name is Ada.');
    expect((await b.openai.conversations.items.list(conv.id)).data).toHaveLength(5);

    // Restart: gateway a goes away; a new process on the same database continues its chain.
    await a.stop();
    rigs.splice(rigs.indexOf(a), 1);
    const c = await start();
    const r4 = await c.openai.responses.create({ model: MODEL, input: 'What is my name?', previous_response_id: r1.id });
    expect(text(r4)).toBe('Your name is Ada.');
    const r5 = await c.openai.responses.create({ model: MODEL, input: 'What is my name?', conversation: conv.id, store: false });
    expect(text(r5)).toBe('Your name is Ada.');
  });

  it('the database stopped under load: 503 for what needs it, 200 for the rest, then recovery by itself', async () => {
    const rig = rigs.at(-1) ?? (await start());
    const before = await rig.openai.responses.create({ model: MODEL, input: 'My name is Ada.' });

    type Outcome = { kind: 'stored' | 'chained' | 'unstored'; status: number; body: string; at: number };
    const outcomes: Outcome[] = [];
    let running = true;
    const worker = async (kind: Outcome['kind']) => {
      while (running) {
        const body =
          kind === 'stored'
            ? { input: 'My name is Ada.' }
            : kind === 'chained'
              ? { input: 'What is my name?', previous_response_id: before.id }
              : { input: 'My name is Ada.', store: false };
        const r = await post(rig, body).catch((e: unknown) => {
          running = false;
          console.error('GATEWAY OUTPUT', rig.gatewayOutput().slice(-3000));
          throw e;
        });
        outcomes.push({ kind, ...r, at: Date.now() });
      }
    };
    const load = Promise.all([worker('stored'), worker('chained'), worker('unstored'), worker('stored')]);
    try {
      await until('load before the outage', () => outcomes.filter((o) => o.status === 200).length >= 8);
      await pg.stop();
      const down = Date.now();
      await until('503s while the database is down', () => outcomes.filter((o) => o.at > down && o.status === 503).length >= 6);
      await until('store: false answered while the database is down', () => outcomes.some((o) => o.at > down && o.kind === 'unstored' && o.status === 200));

      // A stream that needs the store reports the failure in the stream (its head was already sent).
      const streamed = await post(rig, { input: 'My name is Ada.', stream: true });
      expect(streamed.status).toBe(200);
      expect(streamed.body).toContain('event: response.failed');
      expect(streamed.body).toContain('History store unavailable');
      expect((await fetch(`${rig.gatewayURL}/readiness`)).status).toBe(200);

      await pg.start();
      const up = Date.now();
      await until('stored turns after the database is back', () => outcomes.filter((o) => o.at > up && o.kind !== 'unstored' && o.status === 200).length >= 4);
    } finally {
      running = false;
      await load;
      await pg.start();
    }

    for (const o of outcomes) {
      if (o.kind === 'unstored') expect(o.status, o.body).toBe(200);
      else expect([200, 503], o.body).toContain(o.status);
      if (o.status === 503) {
        const err = (JSON.parse(o.body) as { error: { code: string; message: string; type: string } }).error;
        expect(err.code).toBe('history_unavailable');
        expect(err.type).toBe('service_unavailable_error');
        expect(err.message).toMatch(/^History store unavailable: postgres: .+; retry when the database is back$/);
      }
    }
    // The chain from before the outage still continues.
    const after = await rig.openai.responses.create({ model: MODEL, input: 'What is my name?', previous_response_id: before.id });
    expect(text(after)).toBe('Your name is Ada.');
  });
});
