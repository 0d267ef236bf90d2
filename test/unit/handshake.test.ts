import { encode } from '@msgpack/msgpack';
import { lstat } from 'node:fs/promises';
import * as zmq from 'zeromq';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeHello } from '../../src/engine/handshake-messages.js';
import { HandshakeError, runHandshake, type HandshakeResult } from '../../src/engine/handshake.js';
import { deriveAddresses, prepareIpcEndpoints, type EngineAddresses } from '../../src/engine/ipc-path.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeEngine, fakeDialect, sleep, testWorker } from './engine-test-kit.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function begin(engineCount: number, opts: { stageTimeoutMs?: number; signal?: AbortSignal } = {}) {
  const w = await testWorker();
  cleanups.push(w.cleanup);
  const addresses = deriveAddresses(w.url, w.handshake);
  await prepareIpcEndpoints(addresses);
  const pending = runHandshake({
    addresses,
    engineCount,
    dialect: fakeDialect,
    stageTimeoutMs: opts.stageTimeoutMs ?? 5000,
    signal: opts.signal,
    logger: silentLogger(),
  });
  // Failures are asserted by the tests; keep an early rejection from being reported as unhandled.
  pending.catch(() => {});
  pending.then(closeResult, () => {});
  return { w, addresses, pending };
}

function closeResult(r: HandshakeResult): void {
  cleanups.push(() => {
    r.input.close();
    r.output.close();
  });
}

function engine(index: number, addresses: EngineAddresses, reg = {}): FakeEngine {
  const e = new FakeEngine(index, addresses.handshake, reg);
  cleanups.push(() => e.close());
  return e;
}

async function rejection(p: Promise<unknown>): Promise<HandshakeError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HandshakeError);
    return err as HandshakeError;
  }
  throw new Error('handshake unexpectedly succeeded');
}

describe('startup handshake, success paths', () => {
  it('one engine, registration before READY (real vLLM order)', async () => {
    const { addresses, pending } = await begin(1);
    const e = engine(0, addresses, { maxModelLen: 2048 });
    await e.start('registration-first');
    const r = await pending;
    expect(r.engines.map((x) => x.index)).toEqual([0]);
    expect(r.engines[0].registration.maxModelLen).toBe(2048);
    expect(r.engines[0].ready.status).toBe('READY');
    expect(e.init?.addresses.inputs).toEqual([addresses.input]);
    expect(e.init?.addresses.outputs).toEqual([addresses.output]);
  });

  it('two engines, one registering before and one after READY, sorted by identity', async () => {
    const { addresses, pending } = await begin(2);
    const e1 = engine(1, addresses);
    const e0 = engine(0, addresses);
    await Promise.all([e1.start('ready-first'), e0.start('registration-first')]);
    const r = await pending;
    expect(r.engines.map((x) => x.index)).toEqual([0, 1]);
    expect(r.engines.map((x) => x.identity.toString('hex'))).toEqual(['0000', '0100']);
  });

  it('accepts TokenSpeed-style base+rank identities', async () => {
    const { addresses, pending } = await begin(2);
    await Promise.all([engine(5, addresses).start(), engine(4, addresses).start()]);
    expect((await pending).engines.map((x) => x.index)).toEqual([4, 5]);
  });

  it('closes the handshake socket afterwards (its port can be bound again)', async () => {
    const { addresses, pending } = await begin(1);
    await engine(0, addresses).start();
    await pending;
    const again = new zmq.Router({ linger: 0 });
    cleanups.push(() => again.close());
    await bindSoon(again, addresses.handshake);
  });
});

describe('startup handshake, failures (smg-newest §1.4 texts)', () => {
  it('an extra engine fails with the duplicate-HELLO-after-INIT text', async () => {
    const { addresses, pending } = await begin(1);
    const a = engine(0, addresses);
    await a.hello();
    await a.awaitInit();
    await engine(2, addresses).hello();
    const err = await rejection(pending);
    expect(err.message).toBe(
      'unexpected startup handshake message: duplicate HELLO for engine id EngineId(0200) after INIT phase',
    );
  });

  it('a second HELLO from the same identity during the HELLO phase', async () => {
    const { addresses, pending } = await begin(2);
    const a = engine(0, addresses);
    await a.hello();
    await a.hs.send(encodeHello());
    expect((await rejection(pending)).message).toBe(
      'unexpected startup handshake message: duplicate engine id EngineId(0000) during startup handshake',
    );
  });

  it('READY from an identity that never said HELLO', async () => {
    const { addresses, pending } = await begin(1);
    const a = engine(0, addresses);
    a.hs.connect(addresses.handshake);
    await a.ready();
    expect((await rejection(pending)).message).toBe(
      'unexpected startup handshake message: READY for unexpected or duplicate engine id EngineId(0000)',
    );
  });

  it('an unknown status, a wrong frame count, a non-2-byte identity', async () => {
    {
      const { addresses, pending } = await begin(1);
      const a = engine(0, addresses);
      a.hs.connect(addresses.handshake);
      await a.hs.send(Buffer.from(encode({ status: 'BOGUS' })));
      expect((await rejection(pending)).message).toBe(
        'unexpected startup handshake message: unexpected handshake status "BOGUS"',
      );
    }
    {
      const { addresses, pending } = await begin(1);
      const a = engine(0, addresses);
      a.hs.connect(addresses.handshake);
      await a.hs.send([encodeHello(), Buffer.from('x')]);
      expect((await rejection(pending)).message).toBe('unexpected startup handshake message: expected 2 frames, got 3');
    }
    {
      const { addresses, pending } = await begin(1);
      const d = new zmq.Dealer({ linger: 0, routingId: 'abc' });
      cleanups.push(() => d.close());
      d.connect(addresses.handshake);
      await d.send(encodeHello());
      expect((await rejection(pending)).message).toBe(
        'unexpected startup handshake message: engine id EngineId(616263) is not a 2-byte engine index',
      );
    }
  });

  it('a missing engine times out waiting for HELLO with the configured seconds', async () => {
    const { addresses, pending } = await begin(2, { stageTimeoutMs: 300 });
    const a = engine(0, addresses);
    await a.hello();
    const err = await rejection(pending);
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('startup handshake timed out while waiting for HELLO after 0.3s');
  });

  it('times out waiting for READY and for the registration', async () => {
    {
      const { addresses, pending } = await begin(1, { stageTimeoutMs: 300 });
      const a = engine(0, addresses);
      await a.hello();
      expect((await rejection(pending)).message).toBe('startup handshake timed out while waiting for READY after 0.3s');
    }
    {
      const { addresses, pending } = await begin(1, { stageTimeoutMs: 300 });
      const a = engine(0, addresses);
      await a.hello();
      await a.awaitInit();
      await a.ready();
      expect((await rejection(pending)).message).toBe('engine input registration timed out after 0.3s');
    }
  });

  it('registration problems: unexpected identity, empty payload, extra frames', async () => {
    {
      const { addresses, pending } = await begin(1);
      const a = engine(0, addresses);
      await a.hello();
      await a.awaitInit();
      await a.ready();
      const stranger = engine(7, addresses);
      stranger.input.connect(addresses.input);
      await stranger.input.send(Buffer.from('{}'));
      expect((await rejection(pending)).message).toBe(
        'unexpected startup handshake message: input registration for unexpected engine id EngineId(0700)',
      );
    }
    {
      const { addresses, pending } = await begin(1);
      const a = engine(0, addresses);
      await a.hello();
      await a.awaitInit();
      await a.register(Buffer.alloc(0));
      await a.ready();
      expect((await rejection(pending)).message).toBe(
        'unexpected startup handshake message: empty EngineCoreReadyResponse from engine id EngineId(0000)',
      );
    }
    {
      const { addresses, pending } = await begin(1);
      const a = engine(0, addresses);
      await a.hello();
      await a.awaitInit();
      a.input.connect(addresses.input);
      await a.input.send([Buffer.from('{}'), Buffer.from('x')]);
      await a.ready();
      expect((await rejection(pending)).message).toBe(
        'unexpected startup handshake message: expected 2 frames for engine input registration, got 3',
      );
    }
  });

  it('rejects engine_count 0 before binding', async () => {
    const w = await testWorker();
    cleanups.push(w.cleanup);
    const err = await rejection(
      runHandshake({ addresses: deriveAddresses(w.url, w.handshake), engineCount: 0, dialect: fakeDialect, logger: silentLogger() }),
    );
    expect(err.message).toBe('expected engine_count >= 1');
  });

  it('a taken handshake port fails the bind and leaves no socket files', async () => {
    const w = await testWorker();
    cleanups.push(w.cleanup);
    const squatter = new zmq.Router({ linger: 0 });
    cleanups.push(() => squatter.close());
    await squatter.bind(w.handshake);
    const addresses = deriveAddresses(w.url, w.handshake);
    await prepareIpcEndpoints(addresses);
    const err = await rejection(
      runHandshake({ addresses, engineCount: 1, dialect: fakeDialect, logger: silentLogger() }),
    );
    expect(err.kind).toBe('bind');
    expect(err.message).toContain(`failed to bind handshake socket ${w.handshake}`);
    await expect(lstat(addresses.inputPath)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(addresses.outputPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('an AbortSignal cancels a waiting handshake and releases every bind at once', async () => {
    const ac = new AbortController();
    const { addresses, pending } = await begin(1, { signal: ac.signal, stageTimeoutMs: 60_000 });
    await sleep(50);
    const t0 = performance.now();
    ac.abort();
    const err = await rejection(pending);
    expect(err.kind).toBe('cancelled');
    expect(performance.now() - t0).toBeLessThan(1000);
    const hs = new zmq.Router({ linger: 0 });
    const input = new zmq.Router({ linger: 0 });
    cleanups.push(() => {
      hs.close();
      input.close();
    });
    await bindSoon(hs, addresses.handshake);
    await bindSoon(input, addresses.input);
  });
});

/**
 * libzmq frees a closed socket's port on its I/O thread shortly after close() returns; "released"
 * means bindable within a fraction of a second, not on the very same tick.
 */
async function bindSoon(sock: zmq.Socket, addr: string): Promise<void> {
  const deadline = performance.now() + 1000;
  for (;;) {
    try {
      await sock.bind(addr);
      return;
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await sleep(25);
    }
  }
}
