/**
 * Two gateways, one worker path. libzmq would let the second one unlink and rebind the first one's
 * live ipc sockets, silently taking its engine away; the second gateway must refuse instead, keep
 * refusing on every retry, and the first gateway must not even notice the checks.
 */
import { lstat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { chat, startGateway, startRanks, waitReady, workers } from './support/grouped-rig.js';
import { waitFor } from './support/proc.js';

const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

describe('a worker path that another gateway is bound to', () => {
  it('is refused by the second gateway, with the path named, while the first keeps serving', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'smg-two-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const url = `ipc://${dir}/w0`;
    const first = await startGateway({ startupWorker: false, args: ['--worker-urls', url] });
    stops.push(() => first.stop());
    const engine = startRanks({ port: handshakePortFor(url), size: 1 });
    stops.push(() => engine.stop(2000));
    await waitReady(first, [engine]);
    const inode = (await lstat(`${dir}/w0-in.sock`)).ino;

    // Probes every second, so the refusal is retried (and must be refused again) within the test.
    const second = await startGateway({ startupWorker: false, args: ['--worker-urls', url, '--health-check-interval-secs', '1'] });
    stops.push(() => second.stop());
    const refusal =
      `ZMQ backend handshake failed for ${url}: ipc socket path ${dir}/w0-in.sock is live: another process (probably another gateway) ` +
      'is bound to it; refusing to unlink it (stop that process, or give this worker a different ipc path); will retry on the next health probe';
    const t0 = performance.now();
    await waitFor('two refusals by the second gateway', () => (second.proc.output().split(refusal).length > 2 ? true : undefined), 60_000, {
      detail: () => second.proc.output(),
    });

    console.log(`[measure] second gateway up → two refusals: ${(performance.now() - t0).toFixed(0)} ms`);
    expect((await workers(second))[0]?.status).toBe('pending');
    expect((await lstat(`${dir}/w0-in.sock`)).ino).toBe(inode); // not unlinked, not rebound
    // The first gateway saw connections that never spoke ZMTP come and go: no engine death.
    expect((await workers(first))[0]?.status).toBe('ready');
    expect(first.proc.output()).not.toContain('treating engine as dead');
    const reply = await chat(first, 'still yours?', 3);
    expect(reply.choices[0].finish_reason).toBe('length');
  }, 180_000);
});
