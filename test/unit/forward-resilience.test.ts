/** The pure parts of the beyond-one-host path: backoff, breaker states, and what a pod means. */
import { describe, expect, it } from 'vitest';
import { backoffMs, breakerOutcome, type RetryConfig } from '../../src/forward/retry.js';
import { CircuitBreaker, type BreakerState } from '../../src/workers/circuit-breaker.js';
import { parseModelIdSource, podModelId, podPorts, podServes, podWorkerUrls } from '../../src/discovery/pod-workers.js';
import { podObject } from '../e2e/support/kube-api-double.js';
import type { V1Pod } from '@kubernetes/client-node';

describe('retry backoff (SMG retry.rs)', () => {
  const cfg: RetryConfig = { maxRetries: 10, initialBackoffMs: 100, maxBackoffMs: 250, backoffMultiplier: 2, jitterFactor: 0 };
  it('grows by the multiplier and stops at the cap', () => {
    expect([0, 1, 2, 10].map((a) => backoffMs(cfg, a))).toEqual([100, 200, 250, 250]);
  });
  it('jitter stays within ± the factor', () => {
    const j = { ...cfg, jitterFactor: 0.2 };
    expect(backoffMs(j, 0, () => 0)).toBe(80);
    expect(backoffMs(j, 0, () => 1)).toBe(120);
    expect(backoffMs(j, 0, () => 0.5)).toBe(100);
  });
  it('429 records nothing on the breaker; other retryable statuses are failures', () => {
    expect([408, 429, 500, 502, 503, 504, 200, 400, 404].map(breakerOutcome)).toEqual([
      'failure', 'none', 'failure', 'failure', 'failure', 'failure', 'success', 'success', 'success',
    ]);
  });
});

describe('circuit breaker', () => {
  function breaker(over: Partial<{ failureThreshold: number; successThreshold: number; timeoutMs: number; windowMs: number }> = {}) {
    let now = 1000;
    const moves: string[] = [];
    const b = new CircuitBreaker(
      { failureThreshold: 3, successThreshold: 2, timeoutMs: 5000, windowMs: 10_000, ...over },
      { transition: (f: BreakerState, t: BreakerState) => moves.push(`${f}->${t}`) },
      () => now,
    );
    return { b, moves, advance: (ms: number) => (now += ms) };
  }

  it('opens after consecutive failures, half-opens after the timeout with one trial, closes after successes', () => {
    const { b, moves, advance } = breaker();
    for (let i = 0; i < 3; i++) b.record(false);
    expect(b.state).toBe('open');
    expect(b.available).toBe(false);
    advance(5000);
    expect(b.state).toBe('half_open');
    expect(b.available).toBe(true);
    b.admit();
    expect(b.available).toBe(false); // one trial at a time
    b.record(true);
    expect(b.state).toBe('half_open');
    b.admit();
    b.record(true);
    expect(b.state).toBe('closed');
    expect(moves).toEqual(['closed->open', 'open->half_open', 'half_open->closed']);
  });

  it('a failed trial re-opens it; a success resets the failure count', () => {
    const { b, advance } = breaker();
    b.record(false);
    b.record(false);
    b.record(true);
    b.record(false);
    b.record(false);
    expect(b.state).toBe('closed');
    b.record(false);
    expect(b.state).toBe('open');
    advance(5000);
    b.admit();
    b.record(false);
    expect(b.state).toBe('open');
  });

  it('failures further apart than the window do not add up', () => {
    const { b, advance } = breaker();
    b.record(false);
    b.record(false);
    advance(10_001);
    b.record(false);
    expect(b.state).toBe('closed');
    expect(b.consecutiveFailures).toBe(1);
  });
});

describe('pods as workers (SMG service_discovery.rs)', () => {
  const pod = (over: Parameters<typeof podObject>[0]) => podObject(over) as unknown as V1Pod;

  it('serves only when Running, Ready, with an IP and not terminating', () => {
    expect(podServes(pod({ name: 'a', ip: '10.0.0.1' }))).toBe(true);
    expect(podServes(pod({ name: 'a', ip: '10.0.0.1', ready: false }))).toBe(false);
    expect(podServes(pod({ name: 'a', ip: '10.0.0.1', phase: 'Pending' }))).toBe(false);
    expect(podServes(pod({ name: 'a', ip: '' }))).toBe(false);
    expect(podServes(pod({ name: 'a', ip: '10.0.0.1', deleting: true }))).toBe(false);
  });

  it('one worker per smg.ai/worker-ports port, de-duplicated; a bad list falls back with a warning', () => {
    expect(podPorts(pod({ name: 'a', ip: '10.0.0.1' }), 80)).toEqual({ ports: [80], warning: null });
    const multi = pod({ name: 'a', ip: '10.0.0.1', annotations: { 'smg.ai/worker-ports': '8000, 8001,8000' } });
    expect(podPorts(multi, 80).ports).toEqual([8000, 8001]);
    expect(podWorkerUrls(multi, [8000, 8001])).toEqual(['http://10.0.0.1:8000', 'http://10.0.0.1:8001']);
    const bad = podPorts(pod({ name: 'a', ip: '10.0.0.1', annotations: { 'smg.ai/worker-ports': '8000,0' } }), 80);
    expect(bad).toEqual({ ports: [80], warning: "Pod default/a: invalid smg.ai/worker-ports annotation '8000,0', falling back to port 80" });
    expect(podWorkerUrls(pod({ name: 'a', ip: 'fd00::1' }), [80])).toEqual(['http://[fd00::1]:80']);
  });

  it('--model-id-from reads the namespace, a label or an annotation', () => {
    const p = pod({ name: 'a', ip: '10.0.0.1', namespace: 'llama', labels: { model: 'm-label' }, annotations: { 'smg.ai/model': 'm-ann' } });
    expect(podModelId(p, parseModelIdSource('namespace'))).toBe('llama');
    expect(podModelId(p, parseModelIdSource('label:model'))).toBe('m-label');
    expect(podModelId(p, parseModelIdSource('annotation:smg.ai/model'))).toBe('m-ann');
    expect(podModelId(p, parseModelIdSource(null))).toBeNull();
    expect(parseModelIdSource('label:')).toBeNull();
  });
});

describe('startup validation of the new flags', async () => {
  const { defaultGatewayConfig } = await import('../../src/gateway/config.js');
  const { validateGatewayConfig } = await import('../../src/gateway/validate-config.js');
  const base = defaultGatewayConfig();
  it('refuses a bad routing-key header, selector term or model-id source; discovery lifts power_of_two\'s two-worker rule', () => {
    expect(validateGatewayConfig({ ...base, routingKeyHeaders: ['x session'] })).toBe("Invalid header name 'x session': invalid HTTP header name");
    expect(validateGatewayConfig({ ...base, serviceDiscovery: true, selector: ['app'] })).toBe("Invalid value for field 'selector': app - Expected key=value");
    expect(validateGatewayConfig({ ...base, modelIdFrom: 'pod' })).toBe("Invalid model-id-from value 'pod'. Expected: namespace, label:<key>, or annotation:<key>");
    expect(validateGatewayConfig({ ...base, policy: 'power_of_two', serviceDiscovery: true, selector: ['app=x'] })).toBeNull();
    expect(validateGatewayConfig({ ...base, workerUrls: ['http://10.0.0.1:8000', 'https://h.example:443'] })).toBeNull();
  });
});
