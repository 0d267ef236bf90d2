/**
 * /metrics as Prometheus reads it: the whole exposition (default process collectors included)
 * goes through a strict text-format reader with promtool's naming rules, and through promtool
 * itself when it is installed. smg_worker_errors_total counts handshake failures and deaths.
 */
import { describe, expect, it } from 'vitest';
import { buildApp, buildMetricsApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';
import { parseExposition } from '../support/prom-text.js';
import { promtoolProblems } from '../support/promtool.js';

const URL_A = 'ipc:///tmp/smg-metrics/engine-a';
const URL_B = 'ipc:///tmp/smg-metrics/engine-b';

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}


describe('the text-format reader', () => {
  it('accepts a clean exposition and reports each naming and syntax problem', () => {
    const clean = [
      '# HELP a_total A counter',
      '# TYPE a_total counter',
      'a_total{x="1",y="q\\"uote"} 3',
      '# HELP h A histogram',
      '# TYPE h histogram',
      'h_bucket{le="0.5"} 1',
      'h_bucket{le="+Inf"} 2',
      'h_sum 0.7',
      'h_count 2',
      '',
    ].join('\n');
    expect(parseExposition(clean).problems).toEqual([]);
    const bad = [
      '# HELP g_total A gauge named like a counter',
      '# TYPE g_total gauge',
      'g_total 1',
      '# TYPE c counter',
      'c{1x="a"} 1',
      'orphan 2',
      '',
    ].join('\n');
    const problems = parseExposition(bad).problems.join('\n');
    expect(problems).toContain('g_total: gauge named with the counter suffix _total');
    expect(problems).toContain('bad label name');
    expect(problems).toContain('sample orphan has no preceding TYPE');
    expect(problems).toContain('c: no HELP text');
  });
});

describe('/metrics', () => {
  it('is clean Prometheus text with the default collectors on, and counts worker errors', async () => {
    const cap = captureLogger();
    const fake = new FakeConnector();
    const ctx = createGatewayContext(
      { ...defaultGatewayConfig(), modelPath: 'm' },
      { logger: cap.logger, connect: fake.connect, defaultMetrics: true },
    );
    const app = buildApp(ctx);
    const metricsApp = buildMetricsApp(ctx);
    ctx.workers.addStartupWorkers([URL_A, URL_B], 'vllm', null);
    await waitFor(() => fake.pending.length === 2);
    fake.pendingFor(URL_B)!.fail('startup handshake timed out while waiting for HELLO after 600s');
    const client = fake.pendingFor(URL_A)!.complete();
    await waitFor(() => ctx.workers.list()[0].isReady);
    client.kill('engine disconnected: output socket peer went away');
    await waitFor(() => !ctx.workers.list()[0].isReady);
    await app.request('/liveness');
    await app.request('/v1/models');

    const text = await (await metricsApp.request('/metrics')).text();
    const { families, problems } = parseExposition(text);
    expect(problems).toEqual([]);
    // The collectors' `_total` gauges are gone; the per-type gauges they duplicate stay.
    expect(families.has('smg_nodejs_active_handles_total')).toBe(false);
    expect(families.has('smg_nodejs_active_handles')).toBe(true);
    expect(families.get('smg_process_cpu_user_seconds_total')?.type).toBe('counter');

    const errors = families.get('smg_worker_errors_total')!.samples;
    const byType = Object.fromEntries(errors.map((s) => [s.labels.error_type, s.value]));
    expect(byType).toEqual({ handshake_failed: 1, engine_external: 1 });
    expect(errors[0].labels).toMatchObject({ worker_type: 'regular', connection_mode: 'zmq', runtime: 'vllm' });

    // promtool, when installed: nothing to fix except the `:` in vLLM's own names (support/promtool.ts).
    const lint = promtoolProblems(text);
    if (lint) expect(lint.problems).toEqual([]);
    await ctx.workers.close();
  });
});
