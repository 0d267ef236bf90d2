import { describe, expect, it } from 'vitest';
import { defaultGatewayConfig } from '../../src/gateway/config.js';
import { startGateway } from '../../src/gateway/server.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

const URL_A = 'ipc:///tmp/smg-server/engine-a';

describe('startGateway', () => {
  it('serves both listeners, registers startup workers, and drains gracefully on close()', async () => {
    const cap = captureLogger();
    const fake = new FakeConnector();
    fake.auto = true;
    let finishStream!: () => void;
    const streamDone = new Promise<void>((r) => (finishStream = r));
    const handle = await startGateway(
      {
        ...defaultGatewayConfig(),
        host: '127.0.0.1',
        port: 0,
        prometheusHost: '127.0.0.1',
        prometheusPort: 0,
        workerUrls: [URL_A],
        backend: 'vllm',
        modelPath: 'm',
        disableTokenizerAutoload: true,
        drainSettleSecs: 0,
        shutdownGracePeriodSecs: 5,
      },
      {
        logger: cap.logger,
        connect: fake.connect,
        defaultMetrics: false,
        deps: {
          inference: {
            completions: async () =>
              new Response(
                new ReadableStream({
                  async start(ctrl) {
                    ctrl.enqueue(new TextEncoder().encode('data: first\n\n'));
                    await streamDone;
                    ctrl.enqueue(new TextEncoder().encode('data: [DONE]\n\n'));
                    ctrl.close();
                  },
                }),
                { headers: { 'Content-Type': 'text/event-stream' } },
              ),
          },
        },
      },
    );
    const base = `http://127.0.0.1:${handle.port}`;
    expect(cap.find(`Metrics server listening on 127.0.0.1:${handle.metricsPort} (/metrics)`)).toHaveLength(1);

    for (let i = 0; i < 100; i++) {
      if ((await fetch(`${base}/readiness`)).status === 200) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const ready = await fetch(`${base}/readiness`);
    expect(await ready.json()).toEqual({ status: 'ready', healthy_workers: 1, total_workers: 1 });
    const metrics = await (await fetch(`http://127.0.0.1:${handle.metricsPort}/metrics`)).text();
    expect(metrics).toContain('connection_mode="zmq"');

    // A stream in flight when shutdown starts finishes within the grace period.
    const stream = await fetch(`${base}/v1/completions`, { method: 'POST', body: '{}' });
    const reader = stream.body!.getReader();
    const firstChunk = new TextDecoder().decode((await reader.read()).value);
    expect(firstChunk).toBe('data: first\n\n');

    const t0 = Date.now();
    const closing = handle.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(handle.ctx.lifecycle.draining).toBe(true);
    finishStream();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe('data: [DONE]\n\n');
    await closing;
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(fake.clients[0].closed).toBe(true);
    await expect(fetch(`${base}/liveness`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${handle.metricsPort}/metrics`)).rejects.toThrow();
    expect(handle.close()).toBe(closing);
  });

  it('a metrics bind failure is fatal with the SMG text', async () => {
    const first = await startGateway(
      { ...defaultGatewayConfig(), host: '127.0.0.1', port: 0, prometheusHost: '127.0.0.1', prometheusPort: 0, drainSettleSecs: 0 },
      { logger: captureLogger().logger, connect: new FakeConnector().connect, defaultMetrics: false },
    );
    await expect(
      startGateway(
        { ...defaultGatewayConfig(), host: '127.0.0.1', port: 0, prometheusHost: '127.0.0.1', prometheusPort: first.metricsPort },
        { logger: captureLogger().logger, connect: new FakeConnector().connect, defaultMetrics: false },
      ),
    ).rejects.toThrow(`failed to bind metrics server on 127.0.0.1:${first.metricsPort}: `);
    await first.close();
  });
});
