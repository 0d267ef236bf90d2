/**
 * Engines cannot outlive `smg serve`, however it dies (real processes throughout):
 * - SIGKILL of serve: each engine's reaper sees its pipe from serve close, stops the engine's
 *   process group and removes the socket and pid files, then exits itself;
 * - SIGKILL of serve *and* its reapers (a crashed run): the engine keeps running, reparented; the
 *   next serve on that socket directory finds its pid file, stops it, and serves on the same port.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from './support/proc.js';
import { claims, privateDir, serveFiles, startServeRun, waitGone, type ServeRun } from './support/lifecycle-kit.js';
import { isGone, launchedPids, readiness } from './support/serve-kit.js';

const runs: ServeRun[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) await r.cleanup();
});

async function readyServe(opts: Parameters<typeof startServeRun>[0], workers: number): Promise<ServeRun> {
  const run = await startServeRun(opts);
  runs.push(run);
  await waitFor('serve ready', async () => ((await readiness(run.base)).body.healthy_workers === workers ? true : undefined), 120_000, {
    detail: () => run.proc.output(),
  });
  return run;
}

describe('engines cannot outlive smg serve (e2e)', () => {
  it('SIGKILL of serve: the reapers stop every engine group and remove the socket and pid files', async () => {
    const run = await readyServe({ workerBasePort: 46000, extra: ['--dp-size', '2'] }, 2);
    const engines = launchedPids(run.proc.output());
    expect(engines).toHaveLength(2);
    const held = await claims(run.dir);
    expect(held.map((c) => c.engine?.pid).sort()).toEqual(engines.map((e) => e.pid).sort());
    const reapers = held.map((c) => c.reaper!.pid);
    for (const pid of [...engines.map((e) => e.pid), ...reapers]) expect(await isGone(pid)).toBe(false);
    expect((await serveFiles(run.dir)).filter((f) => f.endsWith('.sock'))).toHaveLength(4);

    const t0 = performance.now();
    run.proc.child.kill('SIGKILL');
    expect(await run.proc.exited).toBe(137);
    for (const e of engines) await waitGone(`engine pid ${e.pid}`, e.pid, 60_000, () => run.proc.output());
    for (const pid of reapers) await waitGone(`reaper pid ${pid}`, pid, 30_000, () => run.proc.output());
    console.log(`[measure] SIGKILL of smg serve → both engines and reapers gone: ${(performance.now() - t0).toFixed(0)} ms`);
    await waitFor('socket and pid files removed', async () => ((await serveFiles(run.dir)).length === 0 ? true : undefined), 30_000, {
      detail: () => run.proc.output(),
    });
    expect(run.proc.output()).toMatch(/smg engine reaper: smg serve \(pid \d+\) is gone; stopping engine-0 \(process group \d+, ipc:\/\//);
  });

  it('an engine left by a crashed serve (reaper killed too) is stopped by the next serve, which takes its port', async () => {
    const dir = await privateDir('smg-orphan-');
    const first = await readyServe({ dir, workerBasePort: 46500 }, 1);
    const [engine] = launchedPids(first.proc.output());
    const [claim] = await claims(dir);
    expect(claim.engine?.pid).toBe(engine.pid);
    // A crash that takes the reaper along: what the pid file is for.
    process.kill(claim.reaper!.pid, 'SIGKILL');
    await waitGone('reaper', claim.reaper!.pid, 30_000);
    first.proc.child.kill('SIGKILL');
    await first.proc.exited;
    // Nothing stops it now: it runs on, reparented, with its pid file left behind.
    expect(await isGone(engine.pid)).toBe(false);
    expect(await serveFiles(dir)).toContain(`engine-${engine.port}.pid`);

    const second = await readyServe({ dir, workerBasePort: 46500 }, 1);
    const out = second.proc.output();
    expect(out).toContain(
      `engine-0 (pid ${engine.pid}, ipc://${dir}/engine-${engine.port}) was left running by smg serve (pid ${first.proc.child.pid}), which is gone; stopping its process group`,
    );
    expect(out).toContain(`Removed engine-${engine.port}.pid, left by smg serve (pid ${first.proc.child.pid}), which is gone`);
    expect(await isGone(engine.pid)).toBe(true);
    const [next] = launchedPids(out);
    expect(next.port).toBe(engine.port);

    second.proc.child.kill('SIGTERM');
    expect(await second.proc.exited).toBe(143);
    await waitGone('second engine', next.pid, 30_000);
    expect(await serveFiles(dir)).toEqual([]);
  });
});
