/**
 * Where spans go. The exporter speaks OTLP over HTTP/protobuf, so an endpoint is a URL whose path
 * is the traces path. Both upstream spellings are taken:
 * - vLLM's `--otlp-traces-endpoint` is a URL (its exporter picks the protocol from
 *   OTEL_EXPORTER_OTLP_TRACES_PROTOCOL; here it is always http/protobuf);
 * - SMG's is `host:port` with `http://` prepended when missing
 *   (model_gateway/src/observability/otel_trace.rs), default `localhost:4317` for gRPC. The
 *   default here is the OTLP/HTTP port instead, 4318.
 * A URL with no path gets the OTLP/HTTP signal path `/v1/traces` (the OTEL_EXPORTER_OTLP_ENDPOINT
 * rule); a URL with a path is used as given.
 */
export const DEFAULT_OTLP_TRACES_ENDPOINT = 'http://localhost:4318/v1/traces';

export class TraceEndpointError extends Error {
  override name = 'TraceEndpointError';
}

export function otlpTracesUrl(endpoint: string | null): string {
  if (endpoint === null || endpoint.trim() === '') return DEFAULT_OTLP_TRACES_ENDPOINT;
  const raw = endpoint.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TraceEndpointError(`Invalid value for field 'otlp_traces_endpoint': ${endpoint} - not a URL or host:port`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TraceEndpointError(`Invalid value for field 'otlp_traces_endpoint': ${endpoint} - OTLP/HTTP needs http:// or https://`);
  }
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/v1/traces';
  return url.toString();
}
