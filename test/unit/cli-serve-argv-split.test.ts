// Pass-1 argv split of `smg serve` (spec cli-and-api §2.2, §8.1).
// Covers §3 behaviours: 10 (--dp-size alias), 31 (--router- prefix), 32 (--router-disable-arg-fallback),
// 42 (backend-only flags do not break pass 1), 99 (unknown engine flag and its value stay in passthrough).
// Clone decisions tested here: `--` is stripped and the rest goes to the engine; `--flag=value`;
// no prefix abbreviations; an unknown `--router-*` is a usage error instead of reaching the engine.
import { describe, expect, it } from 'vitest';
import { splitServeArgv, type SplitArgv } from '../../src/cli/serve/argv-split.js';

function split(argv: string[]): SplitArgv {
  const r = splitServeArgv(argv);
  if (!r.ok) throw new Error(`unexpected usage error: ${r.error.message}`);
  return r.split;
}

function usage(argv: string[]): string {
  const r = splitServeArgv(argv);
  if (r.ok) throw new Error('expected a usage error');
  expect(r.error.exitCode).toBe(2);
  return r.error.message;
}

describe('splitServeArgv', () => {
  it('consumes serve flags and passes every other token through verbatim, in order (§3.42, §3.99)', () => {
    const s = split([
      '--backend', 'tokenspeed', '--model', '/tmp/model', '--connection-mode', 'zmq',
      '--mem-fraction-static', '0.8', '--enforce-eager', '--seed', '007', '--hf-overrides', '{"a":1}',
    ]);
    expect(s.serve).toEqual({ backend: 'tokenspeed', 'connection-mode': 'zmq' });
    expect(s.engineArgs).toEqual([
      '--model', '/tmp/model', '--mem-fraction-static', '0.8', '--enforce-eager', '--seed', '007', '--hf-overrides', '{"a":1}',
    ]);
  });

  it('accepts the --dp-size alias under the canonical name (§3.10)', () => {
    expect(split(['--dp-size', '4']).serve['data-parallel-size']).toBe('4');
    expect(split(['--data-parallel-size=3']).serve['data-parallel-size']).toBe('3');
  });

  it('consumes --host/--port (gateway) and never forwards them to the engine', () => {
    const s = split(['--host', '0.0.0.0', '--port=30000', '--max-model-len', '4096']);
    expect(s.serve).toEqual({ host: '0.0.0.0', port: '30000' });
    expect(s.engineArgs).toEqual(['--max-model-len', '4096']);
  });

  it('accepts gateway flags with the --router- prefix, in both forms (§3.31)', () => {
    const s = split(['--router-policy', 'round_robin', '--router-model-path=/m', '--router-log-level', 'debug']);
    expect(s.router).toEqual({ policy: 'round_robin', 'model-path': '/m', 'log-level': 'debug' });
    expect(s.engineArgs).toEqual([]);
  });

  it('parses --router-disable-arg-fallback as a boolean (§3.32)', () => {
    expect(split(['--router-disable-arg-fallback']).router['disable-arg-fallback']).toBe(true);
  });

  it('maps router aliases to the canonical gateway name', () => {
    expect(split(['--router-model', 'm']).router['model-path']).toBe('m');
    expect(split(['--router-worker-auto-recovery']).router['remove-unhealthy-workers']).toBe(true);
  });

  it('takes a negative number as a value', () => {
    expect(split(['--router-max-concurrent-requests', '-1']).router['max-concurrent-requests']).toBe('-1');
  });

  it('accumulates multi-value flags across repeats and stops at the next flag', () => {
    const s = split(['--worker-urls', 'ipc:///a', 'ipc:///b', '--enforce-eager', '--worker-urls', 'ipc:///c']);
    expect(s.serve['worker-urls']).toEqual(['ipc:///a', 'ipc:///b', 'ipc:///c']);
    expect(s.engineArgs).toEqual(['--enforce-eager']);
  });

  it('treats `--` as "the rest is engine args" and drops the separator', () => {
    const s = split(['--backend', 'vllm', '--dp-size', '2', '--', '--data-parallel-size', '4', '--port', '9', '--']);
    expect(s.serve).toEqual({ backend: 'vllm', 'data-parallel-size': '2' });
    expect(s.engineArgs).toEqual(['--data-parallel-size', '4', '--port', '9', '--']);
  });

  it('does not accept prefix abbreviations of serve flags', () => {
    const s = split(['--data-parallel', '2', '--worker-base', '40000', '--back', 'x']);
    expect(s.serve).toEqual({});
    expect(s.engineArgs).toEqual(['--data-parallel', '2', '--worker-base', '40000', '--back', 'x']);
  });

  it('keeps engine --flag=value tokens whole', () => {
    expect(split(['--max-num-seqs=256', '-tp=2']).engineArgs).toEqual(['--max-num-seqs=256', '-tp=2']);
  });

  it('last value wins for a repeated single-value flag', () => {
    expect(split(['--port', '1', '--port', '2']).serve.port).toBe('2');
  });

  it('recognises -h and --help', () => {
    expect(split(['-h']).serve.help).toBe(true);
    expect(split(['--help']).serve.help).toBe(true);
  });

  it('rejects an unknown --router-* flag (it would otherwise reach the engine)', () => {
    expect(usage(['--router-host', '0.0.0.0'])).toBe('unrecognized arguments: --router-host');
  });

  it('rejects a missing value argparse-style', () => {
    expect(usage(['--port'])).toBe('argument --port: expected one argument');
    expect(usage(['--dp-size', '--enforce-eager'])).toBe('argument --data-parallel-size/--dp-size: expected one argument');
    expect(usage(['--router-worker-urls'])).toBe('argument --router-worker-urls: expected at least one argument');
  });

  it('rejects a value on a boolean flag', () => {
    expect(usage(['--dry-run=yes'])).toBe("argument --dry-run: ignored explicit argument 'yes'");
  });

  it('accepts an injected router flag table', () => {
    const r = splitServeArgv(['--router-engine-metrics', '--router-policy', 'x'], {
      routerFlags: [{ name: 'engine-metrics', arity: 'boolean' }],
    });
    expect(r.ok).toBe(false);
    const ok = splitServeArgv(['--router-engine-metrics'], { routerFlags: [{ name: 'engine-metrics', arity: 'boolean' }] });
    expect(ok.ok && ok.split.router).toEqual({ 'engine-metrics': true });
  });
});
