/**
 * The CORS settings as flags give them → one policy the middleware applies (or null: CORS off).
 *
 * Flags: SMG's `--cors-allowed-origins` (model_gateway/src/main.rs) and vLLM's `--allowed-origins`
 * / `--allowed-methods` / `--allowed-headers` / `--allow-credentials`
 * (vllm/entrypoints/openai/cli_args.py). vLLM takes each list as one JSON value
 * (`--allowed-origins '["http://a"]'`); SMG takes plain words (`--cors-allowed-origins http://a
 * http://b`). Both spellings are accepted here, mixed freely.
 *
 * Off by default, unlike both of them: SMG installs tower-http's CorsLayer with `Any` origin when
 * the list is empty (model_gateway/src/server.rs `create_cors_layer`) and vLLM defaults to `["*"]`,
 * so either lets any web page drive the gateway from a visitor's browser. Here a browser origin
 * gets CORS headers only after the operator names it (or `*`).
 */
import type { GatewayConfig } from '../config.js';

export interface CorsPolicy {
  /** `*` = any origin. */
  readonly origins: '*' | ReadonlySet<string>;
  /** Upper-case methods a preflight may ask for; `*` = any. */
  readonly methods: '*' | ReadonlySet<string>;
  /** Lower-case request headers a preflight may ask for; `*` = whatever the browser asks. */
  readonly headers: '*' | ReadonlySet<string>;
  readonly credentials: boolean;
  /** Response headers a page may read (SMG exposes x-request-id). */
  readonly exposeHeaders: string;
  /** Preflight cache lifetime; SMG's CorsLayer sets 3600 s. */
  readonly maxAgeSecs: number;
}

/**
 * SMG's method list for explicit origins (server.rs), plus PUT, which this gateway's workers API
 * takes (`PUT /workers/{id}`). vLLM's default is `*`; `--allowed-methods` sets another list.
 */
const DEFAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const MAX_AGE_SECS = 3600;

export class CorsConfigError extends Error {
  override name = 'CorsConfigError';
}

/** Each value is a word, or (vLLM's form) a JSON array of strings. */
export function expandCorsList(values: readonly string[], field: string): string[] {
  const out: string[] = [];
  for (const raw of values) {
    const v = raw.trim();
    if (!v.startsWith('[')) {
      if (v !== '') out.push(v);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      throw new CorsConfigError(`Invalid value for field '${field}': ${raw} - not a JSON list of strings`);
    }
    if (!Array.isArray(parsed) || !parsed.every((s) => typeof s === 'string')) {
      throw new CorsConfigError(`Invalid value for field '${field}': ${raw} - not a JSON list of strings`);
    }
    out.push(...(parsed as string[]));
  }
  return out;
}

type CorsSettings = Pick<GatewayConfig, 'corsAllowedOrigins' | 'corsAllowedMethods' | 'corsAllowedHeaders' | 'corsAllowCredentials'>;

/** Null when no origin is configured (CORS off). Throws CorsConfigError on a malformed list. */
export function corsPolicyOf(cfg: CorsSettings): CorsPolicy | null {
  const origins = expandCorsList(cfg.corsAllowedOrigins, 'cors_allowed_origins');
  const methods = expandCorsList(cfg.corsAllowedMethods, 'allowed_methods');
  const headers = expandCorsList(cfg.corsAllowedHeaders, 'allowed_headers');
  if (origins.length === 0) return null;
  for (const o of origins) {
    if (o !== '*' && !/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+$/i.test(o) && o !== 'null') {
      throw new CorsConfigError(`Invalid value for field 'cors_allowed_origins': ${o} - an origin is scheme://host[:port] with no path, or *`);
    }
  }
  return {
    origins: origins.includes('*') ? '*' : new Set(origins),
    methods: methods.includes('*') ? '*' : new Set((methods.length > 0 ? methods : DEFAULT_METHODS).map((m) => m.toUpperCase())),
    // SMG allows only Content-Type and Authorization for explicit origins. That breaks the official
    // SDKs in a browser (openai sends x-stainless-*, anthropic x-api-key / anthropic-version), so
    // without --allowed-headers any requested header is allowed, which is vLLM's default (`*`).
    headers: headers.length === 0 || headers.includes('*') ? '*' : new Set(headers.map((h) => h.toLowerCase())),
    credentials: cfg.corsAllowCredentials,
    exposeHeaders: 'x-request-id',
    maxAgeSecs: MAX_AGE_SECS,
  };
}
