// The gateway configuration `smg serve` produces (spec cli-and-api §2.8, §2.2 fallback rule).
// Covers §3 behaviours: 129 (zmq pins the gateway backend to the serve backend; worker URLs set),
// 130 (engine DP 2 → zmq engine count 2, both backends), 131 (no engine DP → count unset),
// 133–137 (dp ≤ 1: retries and circuit breaker off, policy forced to passthrough, with exact log
// lines; dp 2 untouched; already-disabled is a no-op). Skipped: 126–128, 132 (grpc/http modes are
// rejected at parse time in this clone). Clone decision: model path defaults to --model with a log line.
import { describe, expect, it } from 'vitest';
import { buildGatewayConfig, toLaunchArgv, type GatewayInput } from '../../src/cli/serve/gateway-config.js';

const URL0 = 'ipc:///tmp/smg-zmq-1000/engine-31000';

function input(over: Partial<GatewayInput> = {}): GatewayInput {
  return {
    backend: 'vllm',
    host: '127.0.0.1',
    port: 8080,
    replicas: 1,
    model: 'org/m',
    engineArgs: ['--model', 'org/m'],
    engineDataParallelSize: 1,
    router: {},
    ...over,
  };
}

const messages = (r: ReturnType<typeof buildGatewayConfig>) => r.logLines.map((l) => l.message);

describe('buildGatewayConfig', () => {
  it.each(['vllm', 'tokenspeed'] as const)('pins the backend to %s and sets the worker URLs (§3.129)', (backend) => {
    const r = buildGatewayConfig(input({ backend, router: { backend: 'sglang' } }), [URL0]);
    expect(r.config.backend).toBe(backend);
    expect(r.config.workerUrls).toEqual([URL0]);
  });

  it('overwrites any --worker-urls given to serve', () => {
    const r = buildGatewayConfig(input({ router: { 'worker-urls': ['ipc:///x'] } }), [URL0]);
    expect(r.config.workerUrls).toEqual([URL0]);
    expect(r.config.other).toEqual({});
  });

  it.each(['vllm', 'tokenspeed'] as const)('%s: engine DP 2 → zmq engine count 2 (§3.130)', (backend) => {
    expect(buildGatewayConfig(input({ backend, engineDataParallelSize: 2 }), [URL0]).config.zmqEngineCount).toBe(2);
  });

  it('without engine DP the count stays unset (§3.131)', () => {
    expect(buildGatewayConfig(input(), [URL0]).config.zmqEngineCount).toBeUndefined();
  });

  it('engine DP overrides --router-zmq-engine-count; an explicit count alone is kept with a warning', () => {
    expect(buildGatewayConfig(input({ engineDataParallelSize: 4, router: { 'zmq-engine-count': '2' } }), [URL0]).config.zmqEngineCount).toBe(4);
    const r = buildGatewayConfig(input({ router: { 'zmq-engine-count': '2' } }), [URL0]);
    expect(r.config.zmqEngineCount).toBe(2);
    expect(r.logLines.some((l) => l.level === 'warn' && l.message.includes('--router-zmq-engine-count 2'))).toBe(true);
  });

  it('dp=1: disables retries and circuit breaker, forces passthrough, logs exact lines (§3.133, §3.136)', () => {
    const r = buildGatewayConfig(input({ router: { policy: 'cache_aware' } }), [URL0]);
    expect(r.config).toMatchObject({ disableRetries: true, disableCircuitBreaker: true, policy: 'passthrough', workerUrls: [URL0] });
    expect(messages(r)).toEqual([
      '--router-model-path not set; using --model org/m as the gateway model path',
      'dp=1: disabling router-level retries (per-worker resilience handles failures)',
      'dp=1: disabling router-level circuit breaker (per-worker resilience handles failures)',
      'dp=1: forcing router policy to passthrough (single backend; skips load monitoring and KV-event subscription)',
    ]);
  });

  it('dp=1 with both already disabled and passthrough chosen: no changes, no lines (§3.135)', () => {
    const r = buildGatewayConfig(
      input({ router: { 'disable-retries': true, 'disable-circuit-breaker': true, policy: 'passthrough', 'model-path': 'p' } }),
      [URL0],
    );
    expect(r.config).toMatchObject({ disableRetries: true, disableCircuitBreaker: true, policy: 'passthrough' });
    expect(r.logLines).toEqual([]);
  });

  it('dp=2 leaves retries, circuit breaker and policy untouched (§3.134, §3.137)', () => {
    const r = buildGatewayConfig(input({ replicas: 2, router: { policy: 'cache_aware', 'model-path': 'p' } }), [URL0, URL0]);
    expect(r.config).toMatchObject({ disableRetries: false, disableCircuitBreaker: false, policy: 'cache_aware' });
    expect(r.logLines).toEqual([]);
    expect(buildGatewayConfig(input({ replicas: 2 }), []).config.policy).toBeUndefined();
  });

  it('model path: --router-model-path wins; else --model with one log line; none when fallback is off', () => {
    expect(buildGatewayConfig(input({ router: { 'model-path': '/local/m' } }), [URL0]).config.modelPath).toBe('/local/m');
    const d = buildGatewayConfig(input(), [URL0]);
    expect(d.config.modelPath).toBe('org/m');
    expect(messages(d).filter((m) => m.includes('--router-model-path'))).toHaveLength(1);
    expect(buildGatewayConfig(input({ router: { 'disable-arg-fallback': true } }), [URL0]).config.modelPath).toBeUndefined();
  });

  it('falls back to a same-named vLLM engine value unless disabled (§2.2)', () => {
    const engineArgs = ['--reasoning-parser', 'qwen3'];
    expect(buildGatewayConfig(input({ engineArgs }), [URL0]).config.other['reasoning-parser']).toBe('qwen3');
    expect(buildGatewayConfig(input({ engineArgs, router: { 'reasoning-parser': 'base' } }), [URL0]).config.other['reasoning-parser']).toBe('base');
    expect(buildGatewayConfig(input({ engineArgs, router: { 'disable-arg-fallback': true } }), [URL0]).config.other).toEqual({});
    expect(buildGatewayConfig(input({ backend: 'tokenspeed', engineArgs }), [URL0]).config.other).toEqual({});
    // vLLM's --served-model-name names the model the gateway serves too.
    const served = buildGatewayConfig(input({ engineArgs: ['--served-model-name', 'Qwen/Qwen3-8B'] }), [URL0]).config;
    expect(served.other['served-model-name']).toBe('Qwen/Qwen3-8B');
    expect(toLaunchArgv(served)).toContain('--served-model-name=Qwen/Qwen3-8B');
  });

  it('serve --host/--port become the gateway host/port; other router values pass through', () => {
    const r = buildGatewayConfig(input({ host: '0.0.0.0', port: 30000, router: { 'prometheus-port': '29001', 'log-json': true } }), [URL0]);
    expect(r.config).toMatchObject({ host: '0.0.0.0', port: 30000, other: { 'prometheus-port': '29001', 'log-json': true } });
  });
});

describe('toLaunchArgv', () => {
  it('renders the configuration as `smg launch` flags', () => {
    const { config } = buildGatewayConfig(
      input({ engineDataParallelSize: 2, router: { 'max-concurrent-requests': '-1', 'log-json': true } }),
      [URL0],
    );
    expect(toLaunchArgv(config)).toEqual([
      '--host', '127.0.0.1', '--port', '8080', '--backend', 'vllm', '--worker-urls', URL0, '--model-path', 'org/m',
      '--zmq-engine-count', '2', '--policy', 'passthrough', '--disable-retries', '--disable-circuit-breaker',
      '--max-concurrent-requests=-1', '--log-json',
    ]);
  });
});
