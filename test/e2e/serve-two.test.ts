/**
 * Two `smg serve` with the same flags on one socket directory (as two default runs share
 * /tmp/smg-zmq-<uid> and worker base port 31000): vLLM never binds its worker port, so SMG's TCP
 * probe finds the base port free for both. Each must still get its own worker port, ipc path and
 * handshake port, started at the same moment or one after the other, and serve on its own.
 * A handshake port something else holds makes serve skip that worker port too.
 */
import { createServer, type Server } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { zmqIpcUrl } from '../../src/launcher/ports.js';
import { TINY_MODEL, waitFor } from './support/proc.js';
import { privateDir, serveFiles, startServeRun, type ServeRun } from './support/lifecycle-kit.js';
import { isGone, launchedPids, readiness } from './support/serve-kit.js';

const BASE_PORT = 47000;
const runs: ServeRun[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) await r.cleanup();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function whenReady(run: ServeRun): Promise<void> {
  await waitFor('serve ready', async () => ((await readiness(run.base)).status === 200 ? true : undefined), 120_000, {
    detail: () => run.proc.output(),
  });
}

async function hello(run: ServeRun): Promise<string | null> {
  const client = new OpenAI({ baseURL: `${run.base}/v1`, apiKey: 'unused', maxRetries: 0 });
  const reply = await client.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
  return reply.choices[0].message.content;
}

describe('two smg serve on one socket directory (e2e)', () => {
  it('started at the same moment with the same flags, they pick different worker and handshake ports and both serve', async () => {
    const dir = await privateDir('smg-two-');
    const [a, b] = await Promise.all([0, 1].map(() => startServeRun({ dir, workerBasePort: BASE_PORT })));
    runs.push(a, b);
    await Promise.all([whenReady(a), whenReady(b)]);

    const [ea] = launchedPids(a.proc.output());
    const [eb] = launchedPids(b.proc.output());
    expect(new Set([ea.port, eb.port]).size).toBe(2);
    expect([ea.port, eb.port]).toContain(BASE_PORT);
    expect(handshakePortFor(zmqIpcUrl(ea.port, dir))).not.toBe(handshakePortFor(zmqIpcUrl(eb.port, dir)));
    expect(await serveFiles(dir)).toEqual(
      [ea.port, eb.port].flatMap((p) => [`engine-${p}-in.sock`, `engine-${p}-out.sock`, `engine-${p}.pid`]).sort(),
    );
    for (const run of [a, b]) expect(await hello(run)).toMatch(/^Hel/);

    for (const run of [a, b]) run.proc.child.kill('SIGTERM');
    expect(await Promise.all([a.proc.exited, b.proc.exited])).toEqual([143, 143]);
    for (const e of [ea, eb]) expect(await isGone(e.pid)).toBe(true);
    expect(await serveFiles(dir)).toEqual([]);
  });

  it('a worker port whose handshake port is taken is skipped', async () => {
    const dir = await privateDir('smg-hs-busy-');
    const taken = handshakePortFor(zmqIpcUrl(BASE_PORT + 500, dir));
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(taken, '127.0.0.1', resolve);
    });
    servers.push(server);
    const run = await startServeRun({ dir, workerBasePort: BASE_PORT + 500 });
    runs.push(run);
    await whenReady(run);
    const [engine] = launchedPids(run.proc.output());
    expect(engine.port).toBeGreaterThan(BASE_PORT + 500);
    expect(handshakePortFor(zmqIpcUrl(engine.port, dir))).not.toBe(taken);
    expect(await hello(run)).toMatch(/^Hel/);
  });
});
