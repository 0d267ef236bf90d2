/**
 * Config validation after parsing (cli-and-api §4.1). Returns the `<e>` of
 * `Configuration validation failed: <e>`, or null.
 */
import { checkWorkerUrl } from '../workers/url-checks.js';
import type { GatewayConfig } from './config.js';
import { historyConfigProblem } from '../history/factory.js';
import { CorsConfigError, corsPolicyOf } from './middleware/cors-policy.js';
import { TraceEndpointError, otlpTracesUrl } from '../tracing/endpoint.js';

const field = (name: string, value: unknown, reason: string) => `Invalid value for field '${name}': ${String(value)} - ${reason}`;

export function validateGatewayConfig(c: GatewayConfig): string | null {
  if (c.port <= 0) return field('port', c.port, 'Port must be > 0');
  if (c.port > 65535) return field('port', c.port, 'Port must be <= 65535');
  if (c.prometheusPort <= 0) return field('metrics.port', c.prometheusPort, 'Port must be > 0');
  if (c.prometheusPort > 65535) return field('metrics.port', c.prometheusPort, 'Port must be <= 65535');
  if (c.requestTimeoutSecs <= 0) return field('request_timeout_secs', c.requestTimeoutSecs, 'Must be > 0');
  if (c.queueSize < 0) return field('queue_size', c.queueSize, 'Must be >= 0');
  if (c.queueSize > 0 && c.queueTimeoutSecs <= 0) {
    return field('queue_timeout_secs', c.queueTimeoutSecs, 'Must be > 0 when queue_size > 0');
  }
  if (c.shutdownGracePeriodSecs < 0) return field('shutdown_grace_period_secs', c.shutdownGracePeriodSecs, 'Must be >= 0');
  if (c.drainSettleSecs < 0) return field('drain_settle_secs', c.drainSettleSecs, 'Must be >= 0');
  if (c.healthCheckIntervalSecs <= 0) return field('health_check.check_interval_secs', c.healthCheckIntervalSecs, 'Must be > 0');
  if (c.healthCheckTimeoutSecs <= 0) return field('health_check.timeout_secs', c.healthCheckTimeoutSecs, 'Must be > 0');
  if (c.healthFailureThreshold < 1) return field('health_check.failure_threshold', c.healthFailureThreshold, 'Must be >= 1');
  if (c.healthSuccessThreshold < 1) return field('health_check.success_threshold', c.healthSuccessThreshold, 'Must be >= 1');
  if (c.healthCheckPort !== null && c.healthCheckPort <= 0) {
    return field('health_check_port', c.healthCheckPort, 'Port must be > 0 (0 would request an unstable OS-ephemeral port)');
  }
  if (c.healthCheckPort !== null && c.healthCheckPort > 65535) return field('health_check_port', c.healthCheckPort, 'Port must be <= 65535');
  if (c.rateLimitTokensPerSecond !== null && c.rateLimitTokensPerSecond < 0) {
    return field('rate_limit_tokens_per_second', c.rateLimitTokensPerSecond, 'Must be >= 0 when specified');
  }
  if (c.workerStartupTimeoutSecs <= 0) return field('worker_startup_timeout_secs', c.workerStartupTimeoutSecs, 'Must be > 0');
  if (c.workerStartupCheckInterval <= 0) {
    return field('worker_startup_check_interval_secs', c.workerStartupCheckInterval, 'Must be > 0');
  }
  const history = historyConfigProblem(c);
  if (history) return history;
  if (c.policy === 'prefix_hash') {
    if (c.prefixTokenCount <= 0) return field('prefix_token_count', c.prefixTokenCount, 'Must be > 0');
    if (c.prefixHashLoadFactor < 1) return field('load_factor', c.prefixHashLoadFactor, 'Must be >= 1.0');
  }
  if (c.maxIdleSecs < 0) return field('max_idle_secs', c.maxIdleSecs, 'Must be >= 0');
  for (const url of c.workerUrls) {
    const bad = checkWorkerUrl(url);
    if (bad) return bad;
  }
  try {
    corsPolicyOf(c);
    if (c.otlpTracesEndpoint !== null) otlpTracesUrl(c.otlpTracesEndpoint);
  } catch (err) {
    if (err instanceof CorsConfigError || err instanceof TraceEndpointError) return err.message;
    throw err;
  }
  // SMG main.rs parse_routing_key_header: each must be a valid HTTP header name (RFC 9110 token).
  const badHeader = c.routingKeyHeaders.find((h) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h));
  if (badHeader !== undefined) return `Invalid header name '${badHeader}': invalid HTTP header name`;
  if (c.serviceDiscovery) {
    const bad = c.selector.find((t) => !/^[^=\s]+=[^=\s]*$/.test(t));
    if (bad !== undefined) return field('selector', bad, 'Expected key=value');
  }
  if (c.modelIdFrom !== null && !/^(namespace|label:.+|annotation:.+)$/i.test(c.modelIdFrom)) {
    return `Invalid model-id-from value '${c.modelIdFrom}'. Expected: namespace, label:<key>, or annotation:<key>`;
  }
  if (c.policy === 'power_of_two' && c.workerUrls.length < 2 && !c.serviceDiscovery) {
    return 'Incompatible configuration: Power-of-two policy requires at least 2 workers';
  }
  return null;
}

/** Non-fatal notes logged at startup (SMG silently needs --model-path for ZMQ; we say so). */
export function configWarnings(c: GatewayConfig): string[] {
  const out: string[] = [];
  const zmq = c.workerUrls.filter((u) => u.startsWith('ipc://'));
  if (zmq.length > 0 && c.modelPath === null) {
    out.push(
      `--model-path is not set: ZMQ engines report no model name, so the ${zmq.length} ipc:// worker(s) will be rejected at registration unless they carry a model_id label`,
    );
  }
  if (c.healthCheckEndpoint !== '/health' && c.workerUrls.every((u) => u.startsWith('ipc://'))) {
    out.push(
      `--health-check-endpoint ${c.healthCheckEndpoint} applies to HTTP workers only: ZMQ workers are probed by a local liveness check`,
    );
  }
  return out;
}
