/**
 * Signals as real supervisors deliver them (real processes):
 * - `timeout N smg serve` signals serve and then serve's process group: the same SIGTERM twice
 *   within a millisecond. That is one request — the drain runs, nothing is force-killed;
 * - a second SIGTERM a while later still cuts the drain short, and even then no socket or pid file
 *   is left behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from './support/proc.js';
import { descendants, serveFiles, startServeRun, waitGone, type ServeRun } from './support/lifecycle-kit.js';
import { holdRequestInFlight, launchedPids, readiness } from './support/serve-kit.js';

const runs: ServeRun[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) await r.cleanup();
});

async function whenReady(run: ServeRun): Promise<void> {
  await waitFor('serve ready', async () => ((await readiness(run.base)).status === 200 ? true : undefined), 120_000, {
    detail: () => run.proc.output(),
  });
}

describe('signals from supervisors (e2e)', () => {
  it('timeout delivers SIGTERM twice (process, then group): serve drains once and exits 143, nothing left', async () => {
    const run = await startServeRun({ workerBasePort: 48500, wrapper: ['timeout', '--preserve-status', '600'] });
    runs.push(run);
    await whenReady(run);
    const [engine] = launchedPids(run.proc.output());
    const serve = (await descendants(run.proc.child.pid!)).find((p) => p.cmdline === 'smg::router');
    expect(serve).toBeDefined();

    // What `timeout` does when its time is up, it also does when it is sent the signal itself.
    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    const out = run.proc.output();
    // The two often coalesce into one pending signal in the kernel; either way, one shutdown.
    expect(out.split('Received signal 15, shutting down workers…')).toHaveLength(2);
    expect(out).not.toContain('killing workers now');
    expect(out).toContain('Shutting down: /readiness reports draining');
    expect(out).toContain('Gateway stopped');
    await waitGone('serve', serve!.pid, 30_000);
    await waitGone('engine', engine.pid, 30_000);
    expect(await serveFiles(run.dir)).toEqual([]);
  });

  it('the same signal again a moment later (as handled, not coalesced) is counted once: the drain completes', async () => {
    const run = await startServeRun({ workerBasePort: 48550, extra: ['--router-drain-settle-secs', '3'] });
    runs.push(run);
    await whenReady(run);
    const [engine] = launchedPids(run.proc.output());

    run.proc.child.kill('SIGTERM');
    await waitFor('the first SIGTERM handled', () => (run.proc.output().includes('Received signal 15, shutting down workers…') ? true : undefined), 30_000);
    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    const out = run.proc.output();
    expect(out).toContain('Received signal 15 again within 1s; counting it as the same request (send it again later to stop at once)');
    expect(out).not.toContain('killing workers now');
    expect(out).toContain('Gateway stopped');
    await waitGone('engine', engine.pid, 30_000);
    expect(await serveFiles(run.dir)).toEqual([]);
  });

  it('a second SIGTERM after the repeat window cuts the drain short; no socket or pid file is left', async () => {
    const run = await startServeRun({ workerBasePort: 48600, extra: ['--router-drain-settle-secs', '30'] });
    runs.push(run);
    await whenReady(run);
    const [engine] = launchedPids(run.proc.output());
    expect((await serveFiles(run.dir)).length).toBe(3);
    // In flight, so the drain waits out its settle time (an idle gateway stops at once).
    const held = await holdRequestInFlight(run.base);

    const t0 = performance.now();
    run.proc.child.kill('SIGTERM');
    await waitFor('draining', async () => ((await readiness(run.base)).body.reason === 'draining' ? true : undefined), 30_000);
    await waitFor('the repeat window to pass', () => (performance.now() - t0 > 1100 ? true : undefined));
    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    expect(run.proc.output()).toContain('Received signal 15 again, killing workers now');
    held.release();
    await waitGone('engine', engine.pid, 30_000);
    expect(await serveFiles(run.dir)).toEqual([]);
  });
});
