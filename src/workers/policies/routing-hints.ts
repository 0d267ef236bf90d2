/**
 * The request headers the hashing and sticky policies route by (SMG docs, concepts/routing/
 * load-balancing.md and sticky-sessions.md; smg-project/smg model_gateway/src/routers/common/
 * header_utils.rs):
 *
 * - `X-SMG-Routing-Key`: the session key. consistent_hashing and prefix_hash take any non-empty
 *   UTF-8 value of at most 128 bytes; manual takes any non-empty visible-ASCII value.
 * - `X-SMG-Target-Worker`: consistent_hashing only, a 0-based index into the model's available
 *   workers; a bad index fails the request (503) instead of falling back.
 * - consistent_hashing's implicit keys when no routing key is sent: `Authorization`, then
 *   `X-Forwarded-For`, then `Cookie`.
 */

export interface RoutingHints {
  /** X-SMG-Routing-Key when it passes the hashing policies' check (1–128 bytes). */
  readonly routingKey: string | null;
  /** X-SMG-Routing-Key when it passes manual's check (non-empty visible ASCII). */
  readonly manualKey: string | null;
  /** X-SMG-Target-Worker as sent (non-empty), parsed by the policy. */
  readonly targetWorker: string | null;
  /** The first non-empty of Authorization, X-Forwarded-For, Cookie. */
  readonly implicitKey: string | null;
}

export const NO_HINTS: RoutingHints = { routingKey: null, manualKey: null, targetWorker: null, implicitKey: null };

/** SMG's cap on a routing-key header value, in bytes. */
export const ROUTING_KEY_MAX_BYTES = 128;

/** A header value HTTP would carry as a visible string (what `HeaderValue::to_str` accepts). */
const VISIBLE_ASCII = /^[\t\x20-\x7e]+$/;

/** SMG's default --routing-key-headers. */
export const DEFAULT_ROUTING_KEY_HEADERS: readonly string[] = ['x-smg-routing-key'];

/**
 * `keyHeaders` is --routing-key-headers: checked in order, the first header present with a valid
 * value wins (SMG main.rs `routing_key_headers`).
 */
export function routingHintsFrom(headers: Headers, keyHeaders: readonly string[] = DEFAULT_ROUTING_KEY_HEADERS): RoutingHints {
  let routingKey: string | null = null;
  let manualKey: string | null = null;
  for (const name of keyHeaders) {
    const raw = headers.get(name);
    if (raw === null || raw === '') continue;
    if (routingKey === null && Buffer.byteLength(raw, 'utf8') <= ROUTING_KEY_MAX_BYTES) routingKey = raw;
    if (manualKey === null && VISIBLE_ASCII.test(raw)) manualKey = raw;
    if (routingKey !== null && manualKey !== null) break;
  }
  const target = headers.get('x-smg-target-worker');
  let implicitKey: string | null = null;
  for (const name of ['authorization', 'x-forwarded-for', 'cookie']) {
    const v = headers.get(name);
    if (v !== null && v !== '') {
      implicitKey = v;
      break;
    }
  }
  return { routingKey, manualKey, targetWorker: target !== null && target !== '' ? target : null, implicitKey };
}

/** A policy refused to route the request (answered 503 with this message). */
export class RoutingError extends Error {
  override name = 'RoutingError';
}
