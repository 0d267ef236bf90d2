/**
 * `smg serve` fails loudly at start-up instead of running on with nothing behind it:
 * - an interpreter without vLLM (a fake that prints Python's "No module named 'vllm'" and exits 1):
 *   exit 1 at once, with the engine's own stderr line quoted, and nothing left behind;
 * - an engine that never dials in: exit 1 when the handshake stage timeout passes, with its last
 *   stderr lines, and the engine stopped;
 * - no --model: usage error, exit 2, nothing spawned;
 * - a busy metrics or HTTP port: exit 1 before any engine is spawned.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freeTcpPort } from '../../src/mock-engine/spawn.js';
import { fakePython, privateDir, serveFiles, startServeRun, waitGone, type ServeRun } from './support/lifecycle-kit.js';
import { launchedPids } from './support/serve-kit.js';

const runs: ServeRun[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) await r.cleanup();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

const NO_VLLM = "/usr/bin/python3: Error while finding module specification for 'vllm.entrypoints.cli.main' (ModuleNotFoundError: No module named 'vllm')";

async function occupy(): Promise<number> {
  const port = await freeTcpPort();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return port;
}

describe('smg serve start-up failures (e2e)', () => {
  it('an interpreter without vLLM: exit 1 at once with the engine\'s own stderr line, nothing left', async () => {
    const dir = await privateDir('smg-nov-');
    // Inside double quotes sh keeps the single quotes of Python's message as they are.
    const python = await fakePython(dir, 'python-without-vllm', `echo "loading python" >&2\necho "${NO_VLLM}" >&2\nexit 1`);
    const sockets = await privateDir('smg-nov-sock-');
    const t0 = performance.now();
    const run = await startServeRun({ python, dir: sockets, extra: ['--dp-size', '2'] });
    runs.push(run);
    expect(await run.proc.exited).toBe(1);
    const ms = performance.now() - t0;
    console.log(`[measure] interpreter without vLLM → smg serve exit 1: ${ms.toFixed(0)} ms`);
    const out = run.proc.output();
    expect(out).toContain('No engine completed its startup handshake; stopping smg serve');
    for (const index of [0, 1]) {
      expect(out).toMatch(new RegExp(`engine-${index} \\(ipc://\\S+\\) exited with code 1 before its handshake; its last stderr lines:\\n    loading python\\n    ${NO_VLLM.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    }
    // Not the "all engines ready" line of a healthy start.
    expect(out).not.toContain(`Gateway listening on ${run.base}`);
    expect(await serveFiles(sockets)).toEqual([]);
    // Well within the 600 s handshake stage timeout: the exits decided it.
    expect(ms).toBeLessThan(60_000);
  });

  it('an engine that never dials in: exit 1 once the stage timeout passes, its stderr quoted, the engine stopped', async () => {
    const dir = await privateDir('smg-hang-');
    const python = await fakePython(dir, 'python-that-hangs', 'echo "INFO loading weights (this takes forever)" >&2\nexec sleep 600');
    const run = await startServeRun({ python, extra: ['--router-zmq-stage-timeout-secs', '2'] });
    runs.push(run);
    expect(await run.proc.exited).toBe(1);
    const out = run.proc.output();
    expect(out).toContain('No engine completed its startup handshake; stopping smg serve');
    expect(out).toMatch(
      /engine-0 \(ipc:\/\/\S+\) did not complete its handshake: startup handshake timed out while waiting for HELLO after 2s; its last stderr lines:\n {4}INFO loading weights \(this takes forever\)/,
    );
    const [engine] = launchedPids(out);
    await waitGone('the hung engine', engine.pid, 30_000);
    expect(await serveFiles(run.dir)).toEqual([]);
  });

  it('no --model: a usage error (exit 2) and no engine is spawned', async () => {
    const run = await startServeRun({ model: null });
    runs.push(run);
    expect(await run.proc.exited).toBe(2);
    expect(run.proc.output()).toContain('smg serve: error: --model is required with --connection-mode zmq');
    expect(run.proc.output()).not.toContain('Launching worker');
  });

  it('a busy metrics port: exit 1 before any engine is spawned', async () => {
    const busy = await occupy();
    const run = await startServeRun({ extra: ['--router-prometheus-port', String(busy)] });
    runs.push(run);
    expect(await run.proc.exited).toBe(1);
    const out = run.proc.output();
    expect(out).toContain(`Error starting router: failed to bind metrics server on 127.0.0.1:${busy}`);
    expect(out).toContain('EADDRINUSE');
    expect(out).not.toContain('Launching worker');
    expect(await serveFiles(run.dir)).toEqual([]);
  });

  it('a busy HTTP port: exit 1 before any engine is spawned', async () => {
    const busy = await occupy();
    const run = await startServeRun({ extra: ['--port', String(busy)] });
    runs.push(run);
    expect(await run.proc.exited).toBe(1);
    const out = run.proc.output();
    expect(out).toContain('Error starting router:');
    expect(out).toContain('EADDRINUSE');
    expect(out).not.toContain('Launching worker');
    expect(await serveFiles(run.dir)).toEqual([]);
  });
});
