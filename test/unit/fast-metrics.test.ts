/**
 * The smg_* per-request series moved from prom-client's Counter/Histogram to fast-metrics.ts in
 * prom-client's exposition form: the /metrics text must be byte for byte what prom-client writes
 * for the same operations (series listed from their first use, `le` first, reset, inc of 0).
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastHistogram } from '../../src/gateway/fast-metrics.js';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];

function pair() {
  const slow = new Registry();
  const fast = new Registry();
  const labelNames = ['method', 'path'];
  return {
    slow,
    fast,
    h: [
      new Histogram({ name: 'x_seconds', help: 'h', labelNames, buckets: BUCKETS, registers: [slow] }),
      new FastHistogram({ name: 'x_seconds', help: 'h', labelNames, buckets: BUCKETS, registers: [fast], promClient: true }),
    ] as const,
    c: [
      new Counter({ name: 'x_total', help: 'c', labelNames, registers: [slow] }),
      new FastCounter({ name: 'x_total', help: 'c', labelNames, registers: [fast], promClient: true }),
    ] as const,
  };
}

describe('fast metrics in prom-client form', () => {
  it('write the same exposition as prom-client for the same observations', async () => {
    const p = pair();
    const a = { method: 'POST', path: '/v1/chat/completions' };
    const b = { path: '/v1/models', method: 'GET' };
    // Children asked for but never used are not listed (prom-client lists a series from its first use).
    p.h[1].labels({ method: 'PUT', path: '/never' });
    p.c[1].labels({ method: 'PUT', path: '/never' });
    const fastA = p.h[1].labels(a);
    for (const v of [0.0005, 0.02, 0.02, 3, 99, 0.1]) {
      p.h[0].labels(a).observe(v);
      fastA.observe(v);
    }
    p.h[0].observe(b, 0.5);
    p.h[1].labels(b).observe(0.5);
    p.c[0].inc(b, 0);
    p.c[1].labels(b).inc(0);
    p.c[0].labels(a).inc();
    p.c[1].labels(a).inc();
    p.c[0].inc(a, 2.5);
    p.c[1].inc(a, 2.5);
    expect(await p.fast.metrics()).toBe(await p.slow.metrics());
    expect(await p.fast.metrics()).toContain('x_seconds_bucket{le="0.01",method="POST",path="/v1/chat/completions"} 1');

    // After a reset, children already handed out count again and are listed from their next use.
    p.slow.resetMetrics();
    p.fast.resetMetrics();
    expect(await p.fast.metrics()).toBe(await p.slow.metrics());
    p.c[0].labels(a).inc(4);
    p.c[1].labels(a).inc(4);
    fastA.observe(0.2);
    p.h[0].labels(a).observe(0.2);
    expect(await p.fast.metrics()).toBe(await p.slow.metrics());
  });

  it('keep vLLM form: a child is listed at 0 once made, le last', async () => {
    const r = new Registry();
    const h = new FastHistogram({ name: 'vllm:x', help: 'h', labelNames: ['model_name'], buckets: [1], registers: [r] });
    h.labels({ model_name: 'm' });
    expect(await r.metrics()).toContain('vllm:x_bucket{model_name="m",le="1"} 0');
  });
});
