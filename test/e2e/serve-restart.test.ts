/**
 * `smg serve --restart-engines` on mock engines: a SIGKILLed engine is logged, its worker leaves
 * ready, the engine is restarted with backoff and the worker comes back ready when the new engine
 * dials in; SIGTERM then stops the restarted engine too (exit 143, nothing left).
 */
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { TINY_MODEL, waitFor } from './support/proc.js';
import { isGone, launchedPids, readiness, serveOnMocks, workerStatus, type ServeRun } from './support/serve-kit.js';

const BASE_PORT = 43000;

describe('smg serve --restart-engines (e2e)', () => {
  let run: ServeRun;
  afterAll(async () => run?.cleanup());

  it('restarts a killed engine and its worker rejoins', async () => {
    run = await serveOnMocks(['--dp-size', '2', '--restart-engines', '--prefix-engine-output'], BASE_PORT);
    await waitFor('both workers ready', async () => ((await readiness(run.base)).body.healthy_workers === 2 ? true : undefined));
    const [first] = launchedPids(run.proc.output());
    const url = run.workerUrl(first.port);
    // Opt-in prefixes: the mock engine's own log lines carry their engine's label.
    await waitFor('prefixed engine output', () => (/\[engine-0\] .*serving: 1 rank\(s\) registered and READY/.test(run.proc.output()) ? true : undefined));

    const t0 = performance.now();
    process.kill(first.pid, 'SIGKILL');
    await waitFor('worker leaves ready', async () => ((await workerStatus(run.base, url)) !== 'ready' ? true : undefined), 30_000, { stepMs: 5 });
    const leftMs = performance.now() - t0;
    await waitFor('worker ready again', async () => ((await workerStatus(run.base, url)) === 'ready' ? true : undefined), 90_000);
    console.log(`[measure] kill -9 → not ready ${leftMs.toFixed(0)} ms; → ready again (1 s backoff + restart + rebind) ${(performance.now() - t0).toFixed(0)} ms`);

    const out = run.proc.output();
    expect(out).toContain(`engine-0 (pid ${first.pid}, ${url}) was killed by SIGKILL; restarting in 1s (attempt 1)`);
    const pids = launchedPids(out);
    expect(pids).toHaveLength(3);
    const restarted = pids[2];
    expect(restarted.port).toBe(first.port);
    expect(out).toContain(`Restarted engine-0 (pid ${restarted.pid}, attempt 1)`);
    expect(await isGone(first.pid)).toBe(true);

    const client = new OpenAI({ baseURL: `${run.base}/v1`, apiKey: 'unused', maxRetries: 0 });
    const replies = await Promise.all(
      [0, 1, 2, 3].map(() => client.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })),
    );
    for (const r of replies) expect(r.choices[0].message.content).toMatch(/^Hel/);

    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    for (const e of pids) expect(await isGone(e.pid)).toBe(true);
  });
});
