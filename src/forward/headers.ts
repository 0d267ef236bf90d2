/**
 * Which headers cross the proxy. Everything the client sent goes upstream and everything the
 * upstream answered comes back, except the hop-by-hop headers of RFC 9110 §7.6.1 (they describe
 * one connection, not the message) and the framing headers Node recomputes for the new hop.
 */
import { traceHeadersForUpstream } from '../tracing/request-trace.js';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Request headers for the upstream, from Node's rawHeaders ([name, value, name, value, …]). */
export function upstreamRequestHeaders(
  rawHeaders: readonly string[],
  bodyLength: number,
  requestId: string,
  apiKey: string | null,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (HOP_BY_HOP.has(name) || name === 'host' || name === 'content-length' || name === 'expect') continue;
    const prev = out[name];
    out[name] = prev === undefined ? rawHeaders[i + 1] : [...(Array.isArray(prev) ? prev : [prev]), rawHeaders[i + 1]];
  }
  // While tracing is on, this gateway's request span is the upstream's parent (else the client's
  // own traceparent passed on above): one trace follows the request across both hops.
  Object.assign(out, traceHeadersForUpstream());
  out['content-length'] = String(bodyLength);
  // The host logs the same id as the front, so one request is traceable across both hops.
  out['x-request-id'] = requestId;
  // A worker's own key (POST /workers api_key) is used only when the client sent none (SMG
  // header_utils.rs: the user's Authorization wins).
  if (apiKey !== null && out.authorization === undefined) out.authorization = `Bearer ${apiKey}`;
  return out;
}

/** Response headers for the client, from the upstream's rawHeaders. */
export function clientResponseHeaders(rawHeaders: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (HOP_BY_HOP.has(name)) continue;
    const prev = out[name];
    out[name] = prev === undefined ? rawHeaders[i + 1] : [...(Array.isArray(prev) ? prev : [prev]), rawHeaders[i + 1]];
  }
  return out;
}
