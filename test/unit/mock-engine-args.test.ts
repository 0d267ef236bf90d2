import { describe, expect, it } from 'vitest';
import { ArgsError, handshakeAddress, parseMockArgs } from '../../src/mock-engine/args.js';

const launch = ['serve', 'Qwen/Qwen3-0.6B', '--headless', '--data-parallel-size', '2', '--data-parallel-size-local', '2',
  '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', '22670'];

describe('mock-engine argv', () => {
  it('reads the launcher argv, with or without the python -m prefix', () => {
    for (const prefix of [[], ['python3', '-m', 'vllm.entrypoints.cli.main'], ['-m', 'vllm.entrypoints.cli.main'], ['vllm']]) {
      const a = parseMockArgs([...prefix, ...launch]);
      expect(a.model).toBe('Qwen/Qwen3-0.6B');
      expect(a.headless).toBe(true);
      expect([a.dpSize, a.dpSizeLocal, a.dpRpcPort]).toEqual([2, 2, 22670]);
      expect(handshakeAddress(a)).toBe('tcp://127.0.0.1:22670');
    }
  });

  it('collects unknown flags with the value they consume, never swallowing the next flag', () => {
    const a = parseMockArgs([...launch, '--enforce-eager', '--gpu-memory-utilization', '0.9', '--trust-remote-code', '--max-model-len=8k', '-tp', '2']);
    expect(a.ignored).toEqual(['--enforce-eager', '--gpu-memory-utilization 0.9', '--trust-remote-code']);
    expect(a.maxModelLen).toBe(8000);
    expect(a.tensorParallelSize).toBe(2);
  });

  it('defaults: local size = group size, count base 100, real INIT timeout', () => {
    const a = parseMockArgs(['serve', 'm', '-dp', '3']);
    expect([a.dpSizeLocal, a.countBase, a.initTimeoutS, a.maxModelLen, a.fault]).toEqual([3, 100, 300, null, null]);
    expect(handshakeAddress(parseMockArgs(['serve', 'm', '--data-parallel-address', '::1']))).toBe('tcp://[::1]:29550');
  });

  it('rejects bad values with a usable message', () => {
    expect(() => parseMockArgs(['serve', 'm', '--mock-fault', 'boom'])).toThrow(ArgsError);
    expect(() => parseMockArgs(['serve', 'm', '--data-parallel-size', 'two'])).toThrow(/expected an integer/);
    expect(() => parseMockArgs(['serve', 'm', '--mock-token-delay-ms'])).toThrow(/missing value/);
    expect(() => parseMockArgs(['serve', 'm', 'extra'])).toThrow(/unexpected extra argument/);
  });
});
