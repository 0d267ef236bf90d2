// `smg serve` parsing and validation into a ServeConfig (spec cli-and-api §2.1–§2.3, §8).
// Covers §3 behaviours: 7, 8 (backend default sglang, via its exit), 9, 10, 11, 12/13 (mode default grpc,
// via its rejection), 14–22, 34–36 and 39–40 (no usable engine → exit 2), 41 (--help), 45 (vLLM
// --tensor-parallel-size flows from the passthrough), 95 (TokenSpeed non-zmq, clone: at parse, exit 2),
// 98 (tp read, default 1), 99 (TokenSpeed zmq parse keeps unknown engine flags), 100 (zmq + sglang/trtllm exit 2).
// Skipped: 25/43 (vLLM importability and its strict parser: we never import vLLM; unknown engine
// flags go to the engine, which rejects them itself).
import { describe, expect, it } from 'vitest';
import { BACKEND_MISSING, MODE_MISSING, parseServeArgs, TOKENSPEED_ZMQ_ONLY, type ServeConfig } from '../../src/cli/serve/serve-args.js';

const ZMQ_VLLM = ['--backend', 'vllm', '--connection-mode', 'zmq', '--model', 'm'];

function config(argv: string[], env: Record<string, string> = {}): ServeConfig {
  const r = parseServeArgs(argv, { env });
  if (r.kind !== 'config') throw new Error(`expected a config, got ${JSON.stringify(r)}`);
  return r.config;
}

function usage(argv: string[], env: Record<string, string> = {}): string {
  const r = parseServeArgs(argv, { env });
  if (r.kind !== 'error') throw new Error(`expected a usage error, got ${r.kind}`);
  expect(r.error.exitCode).toBe(2);
  return r.error.message;
}

describe('serve defaults and own flags', () => {
  it('has the SMG defaults (§3.11, 15, 17, 19, 20, 21)', () => {
    const c = config(ZMQ_VLLM);
    expect(c).toMatchObject({
      backend: 'vllm',
      connectionMode: 'zmq',
      host: '127.0.0.1',
      port: 8080,
      replicas: 1,
      workerHost: '127.0.0.1',
      workerBasePort: 31000,
      workerStartupTimeoutSecs: 300,
      enableTokenUsageDetails: false,
      python: 'python3',
      restartEngines: false,
      dryRun: false,
      prefixEngineOutput: false,
      tensorParallelSize: 1,
      engineDataParallelSize: 1,
    });
  });

  it('parses every own flag (§3.7, 10, 14, 16, 18, 22)', () => {
    const c = config([
      ...ZMQ_VLLM, '--dp-size', '4', '--worker-host', '0.0.0.0', '--worker-base-port', '40000',
      '--worker-startup-timeout', '600', '--enable-token-usage-details', '--host', '0.0.0.0', '--port', '30000',
      '--python', '/venv/bin/python', '--restart-engines', '--dry-run', '--prefix-engine-output',
    ]);
    expect(c).toMatchObject({
      replicas: 4, workerHost: '0.0.0.0', workerBasePort: 40000, workerStartupTimeoutSecs: 600,
      enableTokenUsageDetails: true, host: '0.0.0.0', port: 30000, python: '/venv/bin/python',
      restartEngines: true, dryRun: true, prefixEngineOutput: true,
    });
    expect(c.engineArgs).toEqual(['--model', 'm']);
  });

  it('takes --python from SMG_PYTHON when the flag is absent', () => {
    expect(config(ZMQ_VLLM, { SMG_PYTHON: '/opt/py' }).python).toBe('/opt/py');
    expect(config([...ZMQ_VLLM, '--python', 'py3.12'], { SMG_PYTHON: '/opt/py' }).python).toBe('py3.12');
  });

  it('takes the default backend from SMG_DEFAULT_BACKEND', () => {
    expect(config(['--connection-mode', 'zmq', '--model', 'm'], { SMG_DEFAULT_BACKEND: 'tokenspeed' }).backend).toBe('tokenspeed');
  });

  it('returns help for --help / -h (§3.41)', () => {
    expect(parseServeArgs(['--help'], { env: {} })).toEqual({ kind: 'help' });
    expect(parseServeArgs(['--backend', 'vllm', '-h'], { env: {} })).toEqual({ kind: 'help' });
  });

  it('carries router values and warns about an ignored --worker-urls', () => {
    const c = config([...ZMQ_VLLM, '--router-policy', 'round_robin', '--worker-urls', 'ipc:///x']);
    expect(c.router).toEqual({ policy: 'round_robin' });
    expect(c.warnings.some((w) => w.includes('--worker-urls is ignored'))).toBe(true);
  });
});

describe('serve validation (exit 2)', () => {
  it('rejects an invalid backend or mode choice (§3.9, §3.39)', () => {
    expect(usage(['--backend', 'foo'])).toBe(
      "argument --backend: invalid choice: 'foo' (choose from 'sglang', 'vllm', 'trtllm', 'tokenspeed')",
    );
    expect(usage(['--backend', 'vllm', '--connection-mode', 'tcp'])).toBe(
      "argument --connection-mode: invalid choice: 'tcp' (choose from 'grpc', 'http', 'zmq')",
    );
  });

  it.each(['sglang', 'trtllm'])('rejects zmq with %s with the exact message (§3.100)', (b) => {
    expect(usage(['--backend', b, '--connection-mode', 'zmq'])).toBe(
      `connection-mode zmq is only supported for the vllm and tokenspeed backends, not ${b}`,
    );
  });

  it('the zmq guard runs before --help, like pass 1 in SMG', () => {
    expect(usage(['--backend', 'sglang', '--connection-mode', 'zmq', '--help'])).toContain('only supported for the vllm');
  });

  it.each(['grpc', 'http'])('rejects TokenSpeed in %s mode at parse time (§3.95)', (mode) => {
    expect(usage(['--backend', 'tokenspeed', '--connection-mode', mode, '--model', 'm'])).toBe(TOKENSPEED_ZMQ_ONLY);
  });

  it('TokenSpeed needs an explicit zmq mode because the default is grpc (§3.13)', () => {
    expect(usage(['--backend', 'tokenspeed', '--model', 'm'])).toBe(TOKENSPEED_ZMQ_ONLY);
  });

  it('exits 2 with no usable engine: empty argv, sglang, vLLM outside zmq (§3.34–36, §3.40)', () => {
    // Defaults the user never typed are not named: say which flag is missing.
    expect(usage([])).toBe(BACKEND_MISSING);
    expect(usage(['--connection-mode', 'zmq', '--model', 'm'])).toBe(BACKEND_MISSING);
    expect(usage(['--backend', 'sglang'])).toContain('backend sglang is not supported');
    expect(usage(['--backend', 'vllm'])).toBe(MODE_MISSING);
    expect(usage(['--backend', 'vllm', '--connection-mode', 'grpc'])).toContain('connection-mode grpc is not supported');
    expect(usage(['--backend', 'vllm', '--connection-mode', 'http'])).toContain('connection-mode http is not supported');
  });

  it('requires replicas >= 1', () => {
    expect(usage([...ZMQ_VLLM, '--dp-size', '0'])).toBe(
      "argument --data-parallel-size/--dp-size: invalid value '0'; expected a count >= 1",
    );
  });

  it('validates --router-zmq-engine-count >= 1 with the gateway message', () => {
    for (const v of ['0', '-1', 'abc']) {
      expect(usage([...ZMQ_VLLM, '--router-zmq-engine-count', v])).toContain(`invalid value '${v}'; expected a count >= 1`);
    }
    expect(config([...ZMQ_VLLM, '--router-zmq-engine-count', '2']).router['zmq-engine-count']).toBe('2');
  });

  it('rejects non-integer and out-of-range ports', () => {
    expect(usage([...ZMQ_VLLM, '--port', 'abc'])).toBe("argument --port: invalid int value: 'abc'");
    expect(usage([...ZMQ_VLLM, '--worker-base-port', '0'])).toBe(
      "argument --worker-base-port: invalid value '0'; expected a port in 1..65535",
    );
  });

  it('rejects TokenSpeed without --model', () => {
    expect(usage(['--backend', 'tokenspeed', '--connection-mode', 'zmq'])).toContain('--model is required with --backend tokenspeed');
  });

  it('rejects a non-integer tensor-parallel size', () => {
    expect(usage([...ZMQ_VLLM, '-tp', 'two'])).toBe("argument --tensor-parallel-size/-tp: invalid int value: 'two'");
  });

  it('rejects an engine data-parallel size below 1', () => {
    expect(usage([...ZMQ_VLLM, '--', '--data-parallel-size', '0'])).toContain("invalid value '0'; expected a count >= 1");
  });
});

describe('engine values read from the passthrough', () => {
  it('reads the TokenSpeed model and keeps unknown engine flags (§3.99)', () => {
    const c = config(['--backend', 'tokenspeed', '--connection-mode', 'zmq', '--model', '/tmp/model', '--mem-fraction-static', '0.8']);
    expect(c.model).toBe('/tmp/model');
    expect(c.engineArgs).toEqual(['--model', '/tmp/model', '--mem-fraction-static', '0.8']);
  });

  it('reads the tensor-parallel size in every spelling, first occurrence wins (§3.45, §3.98)', () => {
    expect(config([...ZMQ_VLLM, '--tensor-parallel-size', '2']).tensorParallelSize).toBe(2);
    expect(config([...ZMQ_VLLM, '-tp', '4']).tensorParallelSize).toBe(4);
    expect(config([...ZMQ_VLLM, '--tensor-parallel-size=8', '-tp', '2']).tensorParallelSize).toBe(8);
  });

  it('accepts a vLLM positional model as the first engine token; it wins over --model', () => {
    expect(config(['--backend', 'vllm', '--connection-mode', 'zmq', 'org/model', '--enforce-eager']).model).toBe('org/model');
    expect(config(['org/a', '--backend', 'vllm', '--connection-mode', 'zmq', '--model', 'org/b']).model).toBe('org/a');
  });

  it('requires a model in zmq mode for vLLM too (no engine-default model the gateway has no tokenizer for)', () => {
    expect(usage(['--backend', 'vllm', '--connection-mode', 'zmq'])).toContain('--model is required with --connection-mode zmq');
    expect(usage(['--backend', 'vllm', '--connection-mode', 'zmq', '--router-model-path', 'm'])).toContain(
      '--model is required with --connection-mode zmq',
    );
    expect(config(['--backend', 'vllm', '--connection-mode', 'zmq', '--model=org/m']).model).toBe('org/m');
  });

  it('reads the engine data-parallel size after `--` (grouped engine)', () => {
    expect(config([...ZMQ_VLLM, '--', '--data-parallel-size', '2']).engineDataParallelSize).toBe(2);
    expect(config([...ZMQ_VLLM, '--dp-size', '3', '--', '--data-parallel-size=4'])).toMatchObject({
      replicas: 3,
      engineDataParallelSize: 4,
    });
  });

  it('ignores a non-integer engine data-parallel size with a warning and uses 1', () => {
    const c = config([...ZMQ_VLLM, '--', '--data-parallel-size', 'two']);
    expect(c.engineDataParallelSize).toBe(1);
    expect(c.warnings).toContain("Ignoring non-integer value 'two' for --data-parallel-size; using 1");
  });
});
