/**
 * The process's one tracer: OpenTelemetry's SDK with a batch processor and the OTLP/HTTP protobuf
 * exporter, service.name `smg` (SMG's resource and tracer name). Off unless configured; while off
 * nothing of the SDK is loaded and every tracing call site costs one boolean check.
 */
import { DiagLogLevel, diag, type Tracer } from '@opentelemetry/api';
import type { Logger } from '../util/logger.js';
import { otlpTracesUrl } from './endpoint.js';

export interface TracingConfig {
  /** SMG's switch; with no endpoint it exports to the default OTLP/HTTP endpoint. */
  enableTrace: boolean;
  /** vLLM's switch (and SMG's endpoint): tracing is on when it is set. */
  otlpTracesEndpoint: string | null;
}

export interface Tracing {
  readonly url: string;
  /** Exports what is buffered (tests; shutdown does it too). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: Tracer | null = null;

/** The tracer while tracing is on; null otherwise (the fast path). */
export function activeTracer(): Tracer | null {
  return active;
}

export function tracingWanted(cfg: TracingConfig): boolean {
  return cfg.enableTrace || cfg.otlpTracesEndpoint !== null;
}

/**
 * Starts the SDK when configured; null when tracing is off. Export failures are logged by the
 * SDK's diag channel and never reach a request: spans are dropped, requests go on.
 */
export async function startTracing(cfg: TracingConfig, logger: Logger): Promise<Tracing | null> {
  if (!tracingWanted(cfg)) return null;
  const url = otlpTracesUrl(cfg.otlpTracesEndpoint);
  // Loaded only when tracing is on: a gateway without it never pays for the SDK's import.
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
  ]);
  reportExportErrors(logger);
  const exporter = new OTLPTraceExporter({ url });
  // SMG batches every 500 ms, 64 spans per export (otel_trace.rs).
  const processor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 500, maxExportBatchSize: 64 });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'smg' }),
    spanProcessors: [processor],
  });
  active = provider.getTracer('smg');
  logger.info(`OpenTelemetry tracing on: OTLP/HTTP protobuf to ${url}`);
  return {
    url,
    flush: () => provider.forceFlush(),
    async shutdown() {
      active = null;
      await provider.shutdown().catch((err: unknown) => logger.warn({ err: String(err) }, 'tracing shutdown failed'));
    },
  };
}

/** A collector that is down must not flood the log: one line per this many milliseconds. */
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * The SDK reports a failed export through its diag channel (a no-op unless set): errors go to the
 * gateway's log, at most one line per 30 s, with how many were not shown.
 */
function reportExportErrors(logger: Logger): void {
  let last = 0;
  let skipped = 0;
  const error = (message: string, ...args: unknown[]) => {
    const now = Date.now();
    if (now - last < ERROR_LOG_INTERVAL_MS) {
      skipped++;
      return;
    }
    last = now;
    const detail = args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
    logger.warn(`tracing: export failed: ${exceptionText(message)}${detail ? ` ${detail}` : ''}${skipped > 0 ? ` (${skipped} more since the last report)` : ''}; spans are dropped, requests are not affected`);
    skipped = 0;
  };
  const quiet = () => {};
  diag.setLogger({ error, warn: quiet, info: quiet, debug: quiet, verbose: quiet }, { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true });
}

/** The SDK's error handler sends an exception as JSON with its stack: its message is enough. */
function exceptionText(text: string): string {
  if (!text.startsWith('{')) return text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : text;
  } catch {
    return text;
  }
}
