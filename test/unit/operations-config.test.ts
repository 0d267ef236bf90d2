/**
 * The settings behind CORS and tracing: flag spellings (SMG's and vLLM's), their validation texts,
 * the OTLP endpoint rules, and CORS staying off unless an origin is named.
 */
import { describe, expect, it } from 'vitest';
import { buildApp, buildMetricsApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { corsPolicyOf, expandCorsList } from '../../src/gateway/middleware/cors-policy.js';
import { validateGatewayConfig } from '../../src/gateway/validate-config.js';
import { parseLaunchArgv } from '../../src/cli/launch/args.js';
import { buildGatewayConfig, toLaunchArgv } from '../../src/cli/serve/gateway-config.js';
import { otlpTracesUrl } from '../../src/tracing/endpoint.js';
import { currentTrace, forwardTraceHeaders, runWithTrace, startRequestTrace, tracePhase, traceHeadersForUpstream } from '../../src/tracing/request-trace.js';
import { startTracing } from '../../src/tracing/tracer.js';
import { upstreamRequestHeaders } from '../../src/forward/headers.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { promtoolProblems } from '../support/promtool.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

function launch(argv: string[]) {
  const r = parseLaunchArgv(argv);
  if (r.kind !== 'config') throw new Error(r.kind === 'error' ? r.message : 'help');
  return r.config;
}

describe('CORS settings', () => {
  it("take SMG's words and vLLM's JSON lists, under either flag name", () => {
    const cfg = launch(['--cors-allowed-origins', 'http://a', 'http://b', '--allowed-origins', '["http://c"]', '--allowed-methods', '["GET","post"]', '--allow-credentials']);
    expect(cfg.corsAllowedOrigins).toEqual(['http://a', 'http://b', '["http://c"]']);
    const policy = corsPolicyOf(cfg)!;
    expect(policy.origins).toEqual(new Set(['http://a', 'http://b', 'http://c']));
    expect(policy.methods).toEqual(new Set(['GET', 'POST']));
    expect(policy.headers).toBe('*');
    expect(policy.credentials).toBe(true);
    expect(corsPolicyOf(launch(['--allowed-origins', '*']))!.origins).toBe('*');
  });

  it('are off with no origin, and a bad list is a configuration error', () => {
    expect(corsPolicyOf(defaultGatewayConfig())).toBeNull();
    expect(corsPolicyOf({ ...defaultGatewayConfig(), corsAllowedMethods: ['GET'] })).toBeNull();
    expect(() => expandCorsList(['["a", 1]'], 'cors_allowed_origins')).toThrow("Invalid value for field 'cors_allowed_origins': [\"a\", 1] - not a JSON list of strings");
    expect(validateGatewayConfig({ ...defaultGatewayConfig(), corsAllowedOrigins: ['[oops'] })).toBe(
      "Invalid value for field 'cors_allowed_origins': [oops - not a JSON list of strings",
    );
    expect(validateGatewayConfig({ ...defaultGatewayConfig(), corsAllowedOrigins: ['http://a/path'] })).toBe(
      "Invalid value for field 'cors_allowed_origins': http://a/path - an origin is scheme://host[:port] with no path, or *",
    );
  });

  it('off by default: a preflight is the usual 405 and responses carry no CORS header', async () => {
    const ctx = createGatewayContext({ ...defaultGatewayConfig(), modelPath: 'm' }, { logger: captureLogger().logger, connect: new FakeConnector().connect });
    const app = buildApp(ctx);
    const pre = await app.request('/v1/chat/completions', {
      method: 'OPTIONS',
      headers: { Origin: 'http://a', 'Access-Control-Request-Method': 'POST' },
    });
    expect(pre.status).toBe(405);
    const res = await app.request('/liveness', { headers: { Origin: 'http://a' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    await ctx.workers.close();
  });
});

describe('tracing settings', () => {
  it("accepts vLLM's URL and SMG's host:port; a bare URL gets OTLP/HTTP's /v1/traces", () => {
    expect(otlpTracesUrl(null)).toBe('http://localhost:4318/v1/traces');
    expect(otlpTracesUrl('collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesUrl('https://otel.example')).toBe('https://otel.example/v1/traces');
    expect(otlpTracesUrl('http://otel.example:4318/custom/traces')).toBe('http://otel.example:4318/custom/traces');
    expect(validateGatewayConfig({ ...defaultGatewayConfig(), otlpTracesEndpoint: 'grpc://x:4317' })).toBe(
      "Invalid value for field 'otlp_traces_endpoint': grpc://x:4317 - OTLP/HTTP needs http:// or https://",
    );
    const cfg = launch(['--otlp-traces-endpoint', 'collector:4318', '--enable-trace']);
    expect([cfg.otlpTracesEndpoint, cfg.enableTrace]).toEqual(['collector:4318', true]);
    expect(launch([]).otlpTracesEndpoint).toBeNull();
  });

  it('off: phases run their function as is, and there is no trace or upstream header', async () => {
    expect(currentTrace()).toBeUndefined();
    expect(tracePhase('x', () => 42)).toBe(42);
    await expect(tracePhase('y', () => Promise.resolve('v'))).resolves.toBe('v');
    expect(() => tracePhase('z', () => {
      throw new Error('boom');
    })).toThrow('boom');
    expect(traceHeadersForUpstream()).toEqual({});
  });
});

describe('smg serve', () => {
  const serve = (engineArgs: string[], router: Record<string, string | true> = {}) =>
    buildGatewayConfig(
      { backend: 'vllm', host: '127.0.0.1', port: 8080, replicas: 1, model: 'org/m', engineArgs: ['--model', 'org/m', ...engineArgs], engineDataParallelSize: 1, router },
      ['ipc:///tmp/smg-ops/engine-0'],
    ).config;

  it("takes vLLM's CORS and tracing flags from a vllm serve command line (the §2.2 fallback), --router-* first", () => {
    const cfg = launch(toLaunchArgv(serve(['--allowed-origins', '["http://app"]', '--allowed-headers', '["content-type"]', '--otlp-traces-endpoint', 'http://c:4318'])));
    expect(corsPolicyOf(cfg)).toMatchObject({ origins: new Set(['http://app']), headers: new Set(['content-type']) });
    expect(cfg.otlpTracesEndpoint).toBe('http://c:4318');
    const routed = launch(toLaunchArgv(serve(['--allowed-origins', '["http://app"]'], { 'cors-allowed-origins': 'http://router' })));
    expect(corsPolicyOf(routed)!.origins).toEqual(new Set(['http://router']));
    expect(corsPolicyOf(launch(toLaunchArgv(serve([]))))).toBeNull();
  });
});

describe('trace headers for an HTTP hop (src/forward/)', () => {
  const incoming = new Headers({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'vendor=x' });

  it('off: the client\'s traceparent and tracestate pass on unchanged', () => {
    expect(forwardTraceHeaders(incoming)).toEqual({ traceparent: incoming.get('traceparent'), tracestate: 'vendor=x' });
    expect(forwardTraceHeaders(new Headers())).toEqual({});
  });

  it('on: the gateway\'s request span becomes the parent, in the caller\'s trace', async () => {
    const otlp = await startOtlpReceiver();
    const tracing = (await startTracing({ enableTrace: false, otlpTracesEndpoint: otlp.url }, captureLogger().logger))!;
    try {
      const t = startRequestTrace(incoming, {})!;
      const sent = runWithTrace(t, () => forwardTraceHeaders(incoming));
      const [, traceId, spanId, flags] = sent.traceparent.split('-');
      expect(traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(spanId).toBe(t.root.spanContext().spanId);
      expect(spanId).not.toBe('00f067aa0ba902b7');
      expect(flags).toBe('01');
      expect(sent.tracestate).toBe('vendor=x');
      expect(runWithTrace(t, () => traceHeadersForUpstream())).toEqual(sent);
      // The HTTP forwarder's request headers carry the same parent in place of the client's.
      const raw = ['traceparent', incoming.get('traceparent')!, 'tracestate', 'vendor=x', 'content-type', 'application/json'];
      const upstream = runWithTrace(t, () => upstreamRequestHeaders(raw, 2, 'req-1', null));
      expect(upstream).toMatchObject({ traceparent: sent.traceparent, tracestate: 'vendor=x', 'content-type': 'application/json', 'x-request-id': 'req-1' });
      expect(upstreamRequestHeaders(raw, 2, 'req-1', null).traceparent).toBe(incoming.get('traceparent'));
      t.release(200);
      await tracing.flush();
      const [root] = await otlp.waitFor((s) => s.length > 0);
      expect([root.name, root.spanId, root.parentSpanId]).toEqual(['llm_request', spanId, '00f067aa0ba902b7']);
    } finally {
      await tracing.shutdown();
      await otlp.close();
    }
  });
});

describe("vLLM's metric names", () => {
  const exposition = async (over: Partial<ReturnType<typeof defaultGatewayConfig>>) => {
    const ctx = createGatewayContext({ ...defaultGatewayConfig(), modelPath: 'm', ...over }, { logger: captureLogger().logger, connect: new FakeConnector().connect });
    const text = await (await buildMetricsApp(ctx).request('/metrics')).text();
    await ctx.workers.close();
    return text;
  };

  it('are on by default; --disable-vllm-metrics leaves SMG\'s alone, which promtool passes as it is', async () => {
    expect(launch([]).disableVllmMetrics).toBe(false);
    expect(launch(['--disable-vllm-metrics']).disableVllmMetrics).toBe(true);
    expect(await exposition({})).toContain('# TYPE vllm:time_to_first_token_seconds histogram');
    const smgOnly = await exposition({ disableVllmMetrics: true });
    expect(smgOnly).not.toContain('vllm:');
    expect(smgOnly).toContain('# TYPE smg_router_ttft_seconds histogram');
    const lint = promtoolProblems(smgOnly);
    if (lint) expect(lint).toEqual({ problems: [], vllmColonNames: 0 });
  });
});
