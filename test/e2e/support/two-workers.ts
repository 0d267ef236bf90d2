/**
 * `smg launch` over two single-engine ZMQ workers (mock vLLM), both ready before a test starts;
 * shared by the routing-policy e2e files. `stopTwoWorkers()` in afterEach ends what was started.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handshakePortFor } from '../../../src/engine/fnv-port.js';
import type { MockEngineProcess } from '../../../src/mock-engine/spawn.js';
import { type Gateway, startGateway, startRanks, waitReady } from './grouped-rig.js';
import { waitFor } from './proc.js';

export interface Pair {
  gw: Gateway;
  engines: MockEngineProcess[];
  dir: string;
}

const running: Pair[] = [];

/** Also stopped by `stopTwoWorkers()` (rigs a test builds itself). */
export function track(pair: Pair): void {
  running.push(pair);
}

/** Stops every rig started or tracked so far. */
export async function stopTwoWorkers(): Promise<void> {
  for (const p of running.splice(0)) {
    await Promise.all(p.engines.map((e) => e.stop(2000)));
    await p.gw.stop();
    await rm(p.dir, { recursive: true, force: true });
  }
}

/** A gateway with `gatewayArgs` in front of two workers whose engines get `engineArgs`. */
export async function twoWorkers(gatewayArgs: string[], engineArgs: string[] = []): Promise<Pair> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-pol-'));
  const urls = [`ipc://${dir}/w0`, `ipc://${dir}/w1`];
  const gw = await startGateway({ startupWorker: false, args: ['--worker-urls', ...urls, ...gatewayArgs] });
  const engines = urls.map((u) => startRanks({ port: handshakePortFor(u), size: 1, args: engineArgs }));
  const pair = { gw, engines, dir };
  running.push(pair);
  await waitReady(gw, engines);
  await waitFor('both workers ready', async () => {
    const body = (await (await fetch(`${gw.base}/workers`)).json()) as { workers: { status: string }[] };
    return body.workers.filter((w) => w.status === 'ready').length === 2 ? true : undefined;
  });
  return pair;
}

/** Requests each engine process received so far (its `request added` log lines). */
export function served(p: Pair): number[] {
  return p.engines.map((e) => e.lines.filter((l) => l.includes('request added')).length);
}
