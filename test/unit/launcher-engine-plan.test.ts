// Planning every engine before any spawn (spec cli-and-api §2.9 steps 3–5).
// Covers §3 behaviour 144 (per-replica GPU env: replica 0 `0,1`, replica 1 `2,3`, PYTHONUNBUFFERED=1),
// 129 (worker URL = ipc URL of port 31000) and the §2.9 log lines; a collision or a short GPU pool
// fails the whole plan, so nothing is started.
import { describe, expect, it } from 'vitest';
import { launchedLine, launchingLine, planEngines, type PlanConfig } from '../../src/launcher/engine-plan.js';

const vllm: PlanConfig = {
  backend: 'vllm',
  python: 'python3',
  model: 'm',
  engineArgs: ['--tensor-parallel-size', '2'],
  workerHost: '127.0.0.1',
  tensorParallelSize: 2,
  engineDataParallelSize: 1,
};

describe('planEngines', () => {
  it('plans URLs, handshake ports, commands and GPU env per replica (§3.144, §3.129)', () => {
    const plans = planEngines(vllm, [31000, 31003], { env: { HOME: '/h' }, uid: 1000 });
    expect(plans.map((p) => p.url)).toEqual(['ipc:///tmp/smg-zmq-1000/engine-31000', 'ipc:///tmp/smg-zmq-1000/engine-31003']);
    expect(plans[0].handshakePort).toBe(24640);
    expect(plans.map((p) => p.env.CUDA_VISIBLE_DEVICES)).toEqual(['0,1', '2,3']);
    expect(plans.every((p) => p.env.PYTHONUNBUFFERED === '1' && p.env.HOME === '/h')).toBe(true);
    expect(plans[0].argv).toContain('24640');
    expect(plans[1].label).toBe('engine-1');
  });

  it('uses SMG_ZMQ_SOCKET_DIR from the given env', () => {
    const [p] = planEngines(vllm, [31000], { env: { SMG_ZMQ_SOCKET_DIR: '/tmp/smg-zmq' } });
    expect(p.url).toBe('ipc:///tmp/smg-zmq/engine-31000');
    expect(p.handshakePort).toBe(22714);
  });

  it('builds TokenSpeed commands with the worker port', () => {
    const [p] = planEngines({ ...vllm, backend: 'tokenspeed', engineArgs: [] }, [31000], { env: {}, uid: 0 });
    expect(p.argv.slice(0, 4)).toEqual(['python3', '-m', 'tokenspeed.cli', 'serve']);
    expect(p.argv).toContain('127.0.0.1:31233');
  });

  it('refuses a handshake collision before planning any engine', () => {
    expect(() => planEngines(vllm, [31022, 31310], { env: {}, uid: 0 })).toThrow(/ZMQ handshake port collision on 25801/);
  });

  it('refuses a short GPU pool for a later replica', () => {
    expect(() => planEngines(vllm, [31000, 31003], { env: { CUDA_VISIBLE_DEVICES: '0,1,2' }, uid: 0 })).toThrow(
      'CUDA_VISIBLE_DEVICES has 3 GPU(s) but dp_rank=1 with tp_size=2 requires index 2..3',
    );
  });

  it('formats the §2.9 log lines', () => {
    const [p] = planEngines({ ...vllm, engineArgs: [] }, [31000], { env: {}, uid: 1000 });
    expect(launchingLine(p)).toBe(
      'Launching worker with command: python3 -m vllm.entrypoints.cli.main serve m --headless --data-parallel-size 1 ' +
        '--data-parallel-size-local 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 24640',
    );
    expect(launchedLine(p, 4242)).toBe('Launched vllm worker on 127.0.0.1:31000 (pid 4242, GPUs: 0,1)');
  });
});
