/**
 * A worker whose engine process is alive but useless, under `smg serve` (real processes): the
 * mock engine goes silent on one request (`--mock-fault silent`: sockets open, nothing sent any
 * more), the gateway's silence watchdog declares the engine dead, and the process runs on.
 * - `--restart-engines`: serve stops that engine (its exit is logged like any other) and the normal
 *   restart with backoff brings up a fresh one, which serves.
 * - without it: serve says what happened and what to do, and leaves the process alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TINY_MODEL, waitFor } from './support/proc.js';
import { startServeRun, waitGone, type ServeRun } from './support/lifecycle-kit.js';
import { isGone, launchedPids, readiness, workerStatus } from './support/serve-kit.js';
import { zmqIpcUrl } from '../../src/launcher/ports.js';

const runs: ServeRun[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) await r.cleanup();
});

const FAULT = ['--router-zmq-silence-timeout-secs', '1', '--mock-fault', 'silent', '--mock-fault-on-request', 'hush'];

async function readyServe(extra: string[], base: number): Promise<ServeRun> {
  const run = await startServeRun({ workerBasePort: base, extra });
  runs.push(run);
  await waitFor('serve ready', async () => ((await readiness(run.base)).status === 200 ? true : undefined), 120_000, {
    detail: () => run.proc.output(),
  });
  return run;
}

async function chat(run: ServeRun, requestId: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${run.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
  });
  return { status: res.status, body: await res.text() };
}

const line = (run: ServeRun, text: string) =>
  waitFor(`"${text}"`, () => (run.proc.output().includes(text) ? true : undefined), 60_000, { detail: () => run.proc.output() });

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exitLogged = (run: ServeRun, pid: number, url: string) =>
  new RegExp(`engine-0 \\(pid ${pid}, ${escape(url)}\\) (exited with code \\d+|was killed by SIG\\w+); restarting in 1s \\(attempt 1\\)`).test(run.proc.output());

describe('an engine alive but cut off from its worker, under smg serve (e2e)', () => {
  it('--restart-engines: the engine is stopped and restarted, and the fresh one serves', async () => {
    const run = await readyServe(['--restart-engines', ...FAULT], 47500);
    const [engine] = launchedPids(run.proc.output());
    const url = zmqIpcUrl(engine.port, run.dir);

    const failed = await chat(run, 'hush-1');
    expect(failed.status, failed.body).toBeGreaterThanOrEqual(500);
    await line(run, `engine-0 (pid ${engine.pid}, ${url}) is still running, but its connection died (`);
    expect(run.proc.output()).toContain('; stopping it so that it is restarted');
    // Its exit, however it takes the SIGTERM (the mock exits 0), is logged like any other.
    await waitFor('the exit and the restart logged', () => (exitLogged(run, engine.pid, url) ? true : undefined), 60_000, {
      detail: () => run.proc.output(),
    });
    await waitGone('the cut-off engine', engine.pid, 30_000);

    await waitFor('worker ready again', async () => ((await workerStatus(run.base, url)) === 'ready' ? true : undefined), 60_000, {
      detail: () => run.proc.output(),
    });
    const fresh = launchedPids(run.proc.output())[1];
    expect(fresh.port).toBe(engine.port);
    expect(run.proc.output()).toContain(`Restarted engine-0 (pid ${fresh.pid}, attempt 1)`);
    const ok = await chat(run, 'fine-1');
    expect(ok.status, ok.body).toBe(200);

    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    expect(await isGone(fresh.pid)).toBe(true);
  });

  it('without --restart-engines: serve says what happened and what to do, and leaves the process alone', async () => {
    const run = await readyServe(FAULT, 48000);
    const [engine] = launchedPids(run.proc.output());
    const url = zmqIpcUrl(engine.port, run.dir);

    const failed = await chat(run, 'hush-2');
    expect(failed.status, failed.body).toBeGreaterThanOrEqual(500);
    await line(
      run,
      `; the gateway cannot use it until it is restarted. Stop it (kill ${engine.pid}) and restart smg serve, or run smg serve with --restart-engines to have such engines restarted automatically`,
    );
    expect(run.proc.output()).toContain(`engine-0 (pid ${engine.pid}, ${url}) is still running, but its connection died (`);
    expect(await isGone(engine.pid)).toBe(false);
    expect(await workerStatus(run.base, url)).not.toBe('ready');
    expect(run.proc.child.exitCode).toBeNull();

    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    await waitGone('engine', engine.pid, 30_000);
  });
});
