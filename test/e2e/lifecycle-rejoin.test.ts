/**
 * A SIGKILLed engine and its restart, with a real gateway and real engine processes: the death is
 * seen at once (input/output disconnect), the dead worker's sockets are rebound at once, so the
 * restarted engine is ready within a second of dialing in, however soon it comes back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockEngineProcess } from '../../src/mock-engine/spawn.js';
import { type Gateway, chat, startGateway, startRanks, waitReady, workers } from './support/grouped-rig.js';
import { waitFor } from './support/proc.js';

const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

const statusOf = async (gw: Gateway) => (await workers(gw))[0]?.status;

function engineFor(gw: Gateway): MockEngineProcess {
  const e = startRanks({ port: gw.handshakePort, size: 1 });
  stops.push(() => e.stop(2000));
  return e;
}

describe('engine restart', () => {
  it('a SIGKILLed engine is replaced within 1 s by one that was already dialing, and again by a fresh restart', async () => {
    const gw = await startGateway();
    stops.push(() => gw.stop());
    const first = engineFor(gw);
    await waitReady(gw, [first]);

    // The replacement dials before the death: the handshake socket is closed after a handshake,
    // so it waits until the gateway binds again. Before the rebind-at-once change that was the
    // second health probe after the death (about 2 s).
    const second = engineFor(gw);
    await second.waitForLine(/mock vLLM engine: /, 60_000);
    const tKill = performance.now();
    first.child.kill('SIGKILL');
    await waitFor('worker leaves ready', async () => ((await statusOf(gw)) !== 'ready' ? true : undefined), 60_000, { stepMs: 5 });
    const leftMs = performance.now() - tKill;
    await waitFor('worker ready again', async () => ((await statusOf(gw)) === 'ready' ? true : undefined), 60_000, {
      stepMs: 5,
      detail: () => `gateway:\n${gw.proc.output()}\nengine:\n${second.output()}`,
    });
    const waitingMs = performance.now() - tKill;
    console.log(`[measure] kill -9 → not ready ${leftMs.toFixed(0)} ms; engine dialing since before the kill → ready ${waitingMs.toFixed(0)} ms after it`);
    expect(leftMs).toBeLessThan(2000);
    expect(waitingMs).toBeLessThan(1000);
    expect(await second.waitForLine(/HELLO sent to/)).toBeTruthy();

    // A restart after the exit, as the supervisor does it: dial (the mock's banner, printed just
    // before it connects) → ready.
    const tKill2 = performance.now();
    second.child.kill('SIGKILL');
    await waitFor('worker leaves ready', async () => ((await statusOf(gw)) !== 'ready' ? true : undefined), 60_000, { stepMs: 5 });
    await second.exited;
    const third = engineFor(gw);
    await third.waitForLine(/mock vLLM engine: /, 60_000);
    const tDial = performance.now();
    await waitFor('worker ready again', async () => ((await statusOf(gw)) === 'ready' ? true : undefined), 60_000, { stepMs: 5 });
    const rejoinMs = performance.now() - tDial;
    console.log(
      `[measure] restarted engine dialed → worker ready ${rejoinMs.toFixed(0)} ms (kill → ready again ${(performance.now() - tKill2).toFixed(0)} ms, mostly engine start-up)`,
    );
    expect(rejoinMs).toBeLessThan(1000);

    const out = gw.proc.output();
    expect(out).toMatch(/died \(engine disconnected: an engine closed its (input|output) connection[^)]*\)\); evicting the dead client and rebinding now/);
    // The probe never had to evict anything: the death itself did.
    expect(out).not.toContain('is no longer alive');
    const reply = await chat(gw, 'back?', 3);
    expect(reply.choices[0].finish_reason).toBe('length');
  }, 180_000);
});
