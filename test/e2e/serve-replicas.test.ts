/**
 * `smg serve --dp-size 2` on mock engines, default supervision (no restart): both workers ready,
 * requests answered through the openai client, an engine that exits is logged with its exit code
 * and its worker leaves ready at once while the other keeps serving; SIGTERM → 143, no engine left.
 */
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { TINY_MODEL, waitFor } from './support/proc.js';
import { isGone, launchedFromBase, readiness, serveOnMocks, workerStatus, type ServeRun } from './support/serve-kit.js';

const BASE_PORT = 42000;

describe('smg serve, two replicas (e2e)', () => {
  let run: ServeRun;
  afterAll(async () => run?.cleanup());

  it('serves on both, reports an engine exit with its code, and stops everything on SIGTERM', async () => {
    const t0 = performance.now();
    run = await serveOnMocks(['--dp-size', '2'], BASE_PORT);
    await waitFor('both workers ready', async () => {
      const r = await readiness(run.base);
      return r.status === 200 && r.body.healthy_workers === 2 ? r.body : undefined;
    });
    console.log(`[measure] smg serve --dp-size 2 start → both workers ready: ${(performance.now() - t0).toFixed(0)} ms`);

    const engines = launchedFromBase(run.proc.output(), BASE_PORT);
    expect(engines).toHaveLength(2);
    const urls = engines.map((e) => run.workerUrl(e.port));
    const out = run.proc.output();
    expect(out).toContain('engine-0: handshake done (context length 4096)');
    expect(out).toContain('engine-1: handshake done (context length 4096)');
    expect(out).not.toContain('dp=2: forcing router policy');

    const client = new OpenAI({ baseURL: `${run.base}/v1`, apiKey: 'unused', maxRetries: 0 });
    const ask = () => client.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
    for (const r of await Promise.all([ask(), ask(), ask()])) expect(r.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: expect.stringMatching(/^Hello/) } });

    // An engine that exits on its own (here: asked to stop by someone else, exit status 0).
    const victim = engines[1];
    const t1 = performance.now();
    process.kill(victim.pid, 'SIGTERM');
    await waitFor('worker leaves ready', async () => ((await workerStatus(run.base, urls[1])) !== 'ready' ? true : undefined), 30_000, { stepMs: 5 });
    console.log(`[measure] engine exit → worker not ready: ${(performance.now() - t1).toFixed(0)} ms`);
    await waitFor('exit logged', () =>
      run.proc.output().includes(`engine-1 (pid ${victim.pid}, ${urls[1]}) exited with code 0; it will not be restarted (see --restart-engines)`)
        ? true
        : undefined,
    );
    // Whichever notices first marks the worker down: the socket disconnect or the process exit.
    expect(run.proc.output()).toContain(`ZMQ engine for ${urls[1]} died (`);
    expect(await readiness(run.base)).toEqual({ status: 200, body: { status: 'ready', healthy_workers: 1, total_workers: 2 } });
    expect(await workerStatus(run.base, urls[0])).toBe('ready');
    expect((await ask()).choices[0].message.content).toMatch(/^Hello/);

    const t2 = performance.now();
    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    console.log(`[measure] SIGTERM → smg serve exit: ${(performance.now() - t2).toFixed(0)} ms`);
    for (const e of engines) expect(await isGone(e.pid)).toBe(true);
  });
});
