import { encode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import {
  decodeInit,
  decodeStatusMessage,
  encodeHello,
  encodeInit,
  encodeReady,
  HandshakeDecodeError,
} from '../../src/engine/handshake-messages.js';

// wire-vllm §6.3
const H1 = '83a6737461747573a548454c4c4fa56c6f63616cc2a8686561646c657373c3';
const H2 =
  '82a961646472657373657385a6696e7075747391d9236970633a2f2f2f746d702f736d672d7a6d712f656e67696e652d302d696e2e736f636ba76f75747075747391d9246970633a2f2f2f746d702f736d672d7a6d712f656e67696e652d302d6f75742e736f636bb1636f6f7264696e61746f725f696e707574c0b2636f6f7264696e61746f725f6f7574707574c0be66726f6e74656e645f73746174735f7075626c6973685f61646472657373c0af706172616c6c656c5f636f6e66696780';
const H4 = '83a6737461747573a55245414459a56c6f63616cc2a8686561646c657373c3';
const H4b =
  '84a6737461747573a55245414459a56c6f63616cc2a8686561646c657373c3b4706172616c6c656c5f636f6e6669675f68617368a83031323361626364';
// wire-tokenspeed §10.1
const TS_HELLO =
  '84a6737461747573a548454c4c4fa56c6f63616cc3a8686561646c657373c3b4706172616c6c656c5f636f6e6669675f68617368c0';

const hex = (h: string) => Buffer.from(h, 'hex');

describe('handshake messages, byte-exact', () => {
  it('H1 HELLO', () => expect(encodeHello().toString('hex')).toBe(H1));
  it('H4 READY', () => expect(encodeReady().toString('hex')).toBe(H4));
  it('H4b READY with parallel_config_hash', () =>
    expect(encodeReady({ parallelConfigHash: '0123abcd' }).toString('hex')).toBe(H4b));
  it('TokenSpeed HELLO (local=true, nil hash)', () =>
    expect(encodeHello({ local: true, parallelConfigHash: null }).toString('hex')).toBe(TS_HELLO));
  it('H2 INIT', () =>
    expect(
      encodeInit('ipc:///tmp/smg-zmq/engine-0-in.sock', 'ipc:///tmp/smg-zmq/engine-0-out.sock').toString('hex'),
    ).toBe(H2));
});

describe('gateway-side decode', () => {
  it('reads HELLO, READY and the optional hash', () => {
    expect(decodeStatusMessage(hex(H1))).toMatchObject({ status: 'HELLO', local: false, headless: true });
    expect(decodeStatusMessage(hex(H4)).parallelConfigHash).toBeUndefined();
    expect(decodeStatusMessage(hex(H4b)).parallelConfigHash).toBe('0123abcd');
    expect(decodeStatusMessage(hex(TS_HELLO)).parallelConfigHash).toBeNull();
  });

  it('ignores unknown keys (elastic EP READY)', () => {
    const m = decodeStatusMessage(Buffer.from(encode({ status: 'READY', coord_store_port: 5, num_redundant_experts: 0 })));
    expect(m.status).toBe('READY');
    expect(m.raw.coord_store_port).toBe(5);
  });

  it('rejects non-maps and a missing status', () => {
    expect(() => decodeStatusMessage(Buffer.from(encode([1])))).toThrow(HandshakeDecodeError);
    expect(() => decodeStatusMessage(Buffer.from(encode({ local: false })))).toThrow(HandshakeDecodeError);
    expect(() => decodeStatusMessage(Buffer.from([0xc1]))).toThrow(HandshakeDecodeError);
  });
});

describe('engine-side INIT decode (strict like msgspec)', () => {
  it('round-trips H2', () => {
    const init = decodeInit(hex(H2));
    expect(init.addresses.inputs).toEqual(['ipc:///tmp/smg-zmq/engine-0-in.sock']);
    expect(init.addresses.outputs).toEqual(['ipc:///tmp/smg-zmq/engine-0-out.sock']);
    expect(init.addresses.coordinatorInput).toBeNull();
    expect(init.parallelConfig).toEqual({});
  });

  it('defaults the optional coordinator keys and ignores unknown keys', () => {
    const init = decodeInit(
      Buffer.from(encode({ addresses: { inputs: ['a'], outputs: ['b'], extra: 1 }, parallel_config: {}, x: 2 })),
    );
    expect(init.addresses.coordinatorOutput).toBeNull();
    expect(init.addresses.frontendStatsPublishAddress).toBeNull();
  });

  it.each([
    [{ parallel_config: {} }, 'addresses'],
    [{ addresses: { outputs: ['b'] }, parallel_config: {} }, 'addresses.inputs'],
    [{ addresses: { inputs: ['a'] }, parallel_config: {} }, 'addresses.outputs'],
    [{ addresses: { inputs: ['a'], outputs: ['b'] } }, 'parallel_config'],
    [{ addresses: { inputs: [1], outputs: ['b'] }, parallel_config: {} }, 'addresses.inputs'],
    [{ addresses: { inputs: ['a'], outputs: ['b'], coordinator_input: 3 }, parallel_config: {} }, 'coordinator_input'],
  ])('rejects %j (%s)', (map, key) => {
    expect(() => decodeInit(Buffer.from(encode(map)))).toThrow(key);
  });
});
