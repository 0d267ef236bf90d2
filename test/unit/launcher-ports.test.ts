// Worker ports, ipc URLs, handshake collisions and TokenSpeed's dist port (spec cli-and-api §2.4).
// Covers §3 behaviours: 69 (derived ports stay in 20000–29999), 70–71 (collision check), 89–90
// (dist port: reflected at the top, never in the handshake band, never the rpc or worker port),
// 96 (worker URL is the ipc URL), 119–125 (port discovery, with an injected probe and real sockets).
// The pinned FNV vectors (§3.68) live in fnv-port.test.ts.
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { LaunchError } from '../../src/launcher/launch-error.js';
import {
  assertNoHandshakeCollision,
  distInitPort,
  findWorkerPorts,
  isPortAvailable,
  zmqIpcUrl,
  zmqSocketDir,
} from '../../src/launcher/ports.js';

const freeExcept = (busy: number[]) => async (p: number) => !busy.includes(p);

describe('findWorkerPorts', () => {
  it('returns the requested count, first = base when free, unique (§3.119, 120, 122)', async () => {
    const ports = await findWorkerPorts(31000, 4, { probe: freeExcept([]), random: () => 0.5 });
    expect(ports).toEqual([31000, 31003, 31006, 31009]);
    expect(new Set(ports).size).toBe(4);
  });

  it('jumps a random 1–5 after a hit and 1 after a miss', async () => {
    expect(await findWorkerPorts(31000, 3, { probe: freeExcept([]), random: () => 0 })).toEqual([31000, 31001, 31002]);
    expect(await findWorkerPorts(31000, 2, { probe: freeExcept([]), random: () => 0.999 })).toEqual([31000, 31005]);
    expect(await findWorkerPorts(31000, 2, { probe: freeExcept([31001, 31002]), random: () => 0 })).toEqual([31000, 31003]);
  });

  it('skips an unavailable base (§3.121)', async () => {
    expect(await findWorkerPorts(31000, 1, { probe: freeExcept([31000]) })).toEqual([31001]);
  });

  it('fails past 65535 with the exact message (§3.123)', async () => {
    const p = findWorkerPorts(65534, 3, { probe: freeExcept([]), random: () => 0 });
    await expect(p).rejects.toThrow(new LaunchError('Could not find 3 available ports starting from 65534'));
    await expect(p).rejects.toMatchObject({ exitCode: 1 });
  });

  it('isPortAvailable returns a boolean and sees a held port as busy (§3.124, §3.125)', async () => {
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r));
    const port = (server.address() as { port: number }).port;
    try {
      expect(await isPortAvailable(port)).toBe(false);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(typeof (await isPortAvailable(64999))).toBe('boolean');
  });
});

describe('ipc URLs', () => {
  it('uses SMG_ZMQ_SOCKET_DIR, else /tmp/smg-zmq-<uid> (§3.96)', () => {
    expect(zmqSocketDir({ SMG_ZMQ_SOCKET_DIR: '/run/smg' }, 1000)).toBe('/run/smg');
    expect(zmqSocketDir({}, 1000)).toBe('/tmp/smg-zmq-1000');
    expect(zmqIpcUrl(31000, '/tmp/smg-zmq-1000')).toBe('ipc:///tmp/smg-zmq-1000/engine-31000');
    expect(handshakePortFor(zmqIpcUrl(31000, '/tmp/smg-zmq-1000'))).toBe(24640);
  });

  it('derived handshake ports stay in 20000–29999 (§3.69)', () => {
    for (let p = 30000; p < 30050; p++) {
      const hp = handshakePortFor(zmqIpcUrl(p, '/tmp/smg-zmq'));
      expect(hp).toBeGreaterThanOrEqual(20000);
      expect(hp).toBeLessThanOrEqual(29999);
    }
  });
});

describe('assertNoHandshakeCollision', () => {
  it('passes for distinct contiguous ports (§3.70)', () => {
    expect(() => assertNoHandshakeCollision([30000, 30001, 30002].map((p) => zmqIpcUrl(p, '/tmp/smg-zmq')))).not.toThrow();
  });

  it('names both colliding URLs, first-seen first, with the exact message (§3.71)', () => {
    const a = 'ipc:///tmp/smg-zmq-0/engine-31022';
    const b = 'ipc:///tmp/smg-zmq-0/engine-31310';
    expect(() => assertNoHandshakeCollision([a, 'ipc:///tmp/smg-zmq-0/engine-31100', b])).toThrow(
      `ZMQ handshake port collision on 25801: ${a} and ${b} derive the same port. Adjust --worker-base-port so the worker ipc paths differ.`,
    );
  });
});

describe('distInitPort', () => {
  it.each([
    [31000, 31233],
    [19767, 30000],
    [29766, 39999],
    [65500, 65267],
  ])('%i → %i', (worker, dist) => {
    expect(distInitPort(worker)).toBe(dist);
  });

  it('never lands in the handshake band nor on the worker or rpc port (§3.90)', () => {
    const ports = [...Array.from({ length: 29767 - 19766 + 1 }, (_, k) => 19766 + k), 31000, 65500];
    const bad = ports.filter((wp) => {
      const dist = distInitPort(wp);
      const rpc = handshakePortFor(zmqIpcUrl(wp, '/tmp/smg-zmq'));
      return (dist >= 20000 && dist <= 29999) || dist === wp || dist === rpc || dist < 1 || dist > 65535;
    });
    expect(bad).toEqual([]);
  });
});
