/**
 * `smg serve --backend tokenspeed --connection-mode zmq` end to end through bin/mock-python: the
 * TokenSpeed argv serve builds (with its default --grammar-backend xgrammar and
 * --enable-output-logprobs) reaches the mock unchanged, so logprobs and structured output work out
 * of the box, an operator's own --grammar-backend none wins (and constrained requests get a 400),
 * and an engine-level --data-parallel-size 2 after `--` becomes one grouped worker of engines 0, 1.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { type APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { freeTcpPort } from '../../src/mock-engine/spawn.js';
import { TS_DEFAULT_TEXT } from '../../src/mock-engine/tokenspeed/engine.js';
import { killProc, ROOT, runSmg, waitFor, waitForOk, type Proc } from './support/proc.js';
import { qwenModelDir } from './support/qwen.js';

const MOCK_PYTHON = join(ROOT, 'bin', 'mock-python');
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

interface Served {
  proc: Proc;
  model: string;
  openai: OpenAI;
}

async function serve(extra: string[]): Promise<Served> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-ts-serve-'));
  const model = await qwenModelDir(dir);
  const [port, mport, wport] = [await freeTcpPort(), await freeTcpPort(), await freeTcpPort()];
  const proc = runSmg(
    [
      'serve', '--backend', 'tokenspeed', '--connection-mode', 'zmq', '--python', MOCK_PYTHON, '--model', model,
      '--host', '127.0.0.1', '--port', String(port), '--worker-base-port', String(wport),
      '--router-prometheus-host', '127.0.0.1', '--router-prometheus-port', String(mport), '--router-drain-settle-secs', '0',
      ...extra,
    ],
    { SMG_ZMQ_SOCKET_DIR: join(dir, 'sock') },
  );
  cleanups.push(async () => {
    // SIGTERM: serve stops its engine process group itself.
    if (proc.child.exitCode === null) proc.child.kill('SIGTERM');
    const timer = setTimeout(() => void killProc(proc), 5000);
    await proc.exited;
    clearTimeout(timer);
    await rm(dir, { recursive: true, force: true });
  });
  await waitForOk('serve readiness', `http://127.0.0.1:${port}/readiness`, 30_000, { detail: () => proc.output() });
  return { proc, model, openai: new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 60_000 }) };
}

const user = (content: string) => [{ role: 'user' as const, content }];
const added = (out: string) => [...out.matchAll(/request added: (\S+) (\{.*\}) engine=(\d+)/g)].map((m) => ({
  fields: JSON.parse(m[2]) as Record<string, unknown>,
  engine: Number(m[3]),
}));

describe('smg serve --backend tokenspeed (e2e)', () => {
  it('serve defaults make logprobs and structured output work; engine DP 2 after -- is one grouped worker', async () => {
    const s = await serve(['--', '--data-parallel-size', '2', '--mock-log-requests']);
    const out = s.proc.output();
    expect(out).toMatch(/-m tokenspeed\.cli serve --headless --model \S+ --port \d+ --dist-init-addr 127\.0\.0\.1:\d+ .*--zmq-engine-index 0 --grammar-backend xgrammar --enable-output-logprobs --data-parallel-size 2/);
    await waitFor('grouped handshake', async () => (/ZMQ engine group connected .*engines=EngineId\(0000\),EngineId\(0100\)/.test(s.proc.output()) ? true : undefined));

    const replies = await Promise.all(
      Array.from({ length: 4 }, () => s.openai.chat.completions.create({ model: s.model, messages: user('Hi'), max_tokens: 4, logprobs: true })),
    );
    for (const r of replies) expect(r.choices[0].logprobs?.content).toHaveLength(4);
    const schema = await s.openai.chat.completions.create({ model: s.model, messages: user('Hi'), response_format: { type: 'json_object' } });
    expect(schema.choices[0].message.content).toBe(TS_DEFAULT_TEXT);

    const adds = added(s.proc.output());
    expect(adds).toHaveLength(5);
    expect(new Set(adds.slice(0, 4).map((a) => a.engine))).toEqual(new Set([0, 1]));
    expect(adds.slice(0, 4).every((a) => a.fields.return_logprob === true)).toBe(true);
    expect(adds[4].fields.json_schema).toBe('{"type":"object"}');
  });

  it("the operator's --grammar-backend none wins, and a constrained request is a clear 400", async () => {
    const s = await serve(['--grammar-backend', 'none']);
    expect(s.proc.output()).toMatch(/--zmq-engine-index 0 --enable-output-logprobs --grammar-backend none/);
    const err = await s.openai.chat.completions
      .create({ model: s.model, messages: user('Hi'), response_format: { type: 'json_object' } })
      .then(() => null, (e: unknown) => e as APIError);
    expect(err?.status).toBe(400);
    expect(err?.message).toContain('TokenSpeed rejected the request at admission');
    const ok = await s.openai.chat.completions.create({ model: s.model, messages: user('Hi') });
    expect(ok.choices[0].message.content).toBe(TS_DEFAULT_TEXT);
  });
});
