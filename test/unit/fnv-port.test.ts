import { describe, expect, it } from 'vitest';
import { handshakeAddressFor, handshakePortFor } from '../../src/engine/fnv-port.js';

// Pinned vectors from spec/cli-and-api.md §2.4 (SMG's tests and docs).
const vectors: Array<[string, number]> = [
  ['/tmp/smg-zmq/ts0.ipc', 25152],
  ['/tmp/smg-zmq/ts1.ipc', 22735],
  ['/tmp/smg-zmq/engine-31000', 22714],
  ['ts0.ipc', 23912],
  ['/tmp/smg-zmq/engine-0', 22670],
  ['/tmp/smg-zmq-0/engine-31000', 27937],
  ['/tmp/smg-zmq-1000/engine-31000', 24640],
];

describe('handshake port derivation', () => {
  it.each(vectors)('%s -> %i', (path, port) => {
    expect(handshakePortFor(path)).toBe(port);
    expect(handshakePortFor(`ipc://${path}`)).toBe(port);
  });

  it('the two colliding serve paths share a port', () => {
    expect(handshakePortFor('/tmp/smg-zmq-0/engine-31022')).toBe(25801);
    expect(handshakePortFor('/tmp/smg-zmq-0/engine-31310')).toBe(25801);
  });

  it('builds the loopback tcp address', () => {
    expect(handshakeAddressFor('ipc:///tmp/smg-zmq/engine-0')).toBe('tcp://127.0.0.1:22670');
  });
});
