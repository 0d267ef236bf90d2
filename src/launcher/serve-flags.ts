/**
 * The flags `smg serve` consumes itself (spec cli-and-api §2.1) and the gateway flags it accepts
 * with a `--router-` prefix (§4.2). Only arity lives here: the splitter needs it to know how many
 * tokens a flag takes; types and defaults are applied later by serve-config.
 */

/** boolean: no value; value: exactly one; multi: one or more, up to the next `-` token. */
export type FlagArity = 'boolean' | 'value' | 'multi';

export interface FlagSpec {
  /** Canonical name without leading dashes, e.g. `data-parallel-size`. */
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly arity: FlagArity;
}

export const SERVE_FLAGS: readonly FlagSpec[] = [
  { name: 'backend', arity: 'value' },
  { name: 'connection-mode', arity: 'value' },
  { name: 'host', arity: 'value' },
  { name: 'port', arity: 'value' },
  { name: 'data-parallel-size', aliases: ['dp-size'], arity: 'value' },
  { name: 'worker-host', arity: 'value' },
  { name: 'worker-base-port', arity: 'value' },
  { name: 'worker-startup-timeout', arity: 'value' },
  { name: 'enable-token-usage-details', arity: 'boolean' },
  // Accepted unprefixed like SMG, then overwritten with the launcher's own URLs (§2.1).
  { name: 'worker-urls', arity: 'multi' },
  // Clone additions (spec §2.7 "make the Python executable configurable", §2.11/§2.12 opt-ins).
  { name: 'python', arity: 'value' },
  { name: 'restart-engines', arity: 'boolean' },
  { name: 'dry-run', arity: 'boolean' },
  { name: 'prefix-engine-output', arity: 'boolean' },
  { name: 'help', aliases: ['h'], arity: 'boolean' },
];

export const ROUTER_PREFIX = 'router-';

/**
 * Gateway flags as `smg launch` spells them; serve accepts each as `--router-<name>`.
 * `--host`/`--port` are absent on purpose: serve's own flags feed the gateway (§2.2).
 * The CLI may pass the launch parser's full table instead (see SplitOptions.routerFlags).
 */
export const ROUTER_FLAGS: readonly FlagSpec[] = [
  { name: 'worker-urls', arity: 'multi' },
  { name: 'backend', arity: 'value' },
  { name: 'model-path', aliases: ['model'], arity: 'value' },
  { name: 'tokenizer-path', arity: 'value' },
  { name: 'chat-template', arity: 'value' },
  { name: 'reasoning-parser', arity: 'value' },
  { name: 'tool-call-parser', arity: 'value' },
  { name: 'policy', arity: 'value' },
  { name: 'zmq-engine-count', arity: 'value' },
  { name: 'dp-aware', arity: 'boolean' },
  { name: 'disable-health-check', arity: 'boolean' },
  { name: 'remove-unhealthy-workers', aliases: ['worker-auto-recovery'], arity: 'boolean' },
  { name: 'health-check-interval-secs', arity: 'value' },
  { name: 'health-check-timeout-secs', arity: 'value' },
  { name: 'health-failure-threshold', arity: 'value' },
  { name: 'health-success-threshold', arity: 'value' },
  { name: 'health-check-endpoint', arity: 'value' },
  { name: 'health-check-port', arity: 'value' },
  { name: 'prometheus-port', arity: 'value' },
  { name: 'prometheus-host', arity: 'value' },
  { name: 'request-timeout-secs', arity: 'value' },
  { name: 'shutdown-grace-period-secs', arity: 'value' },
  { name: 'max-concurrent-requests', arity: 'value' },
  { name: 'queue-size', arity: 'value' },
  { name: 'queue-timeout-secs', arity: 'value' },
  { name: 'rate-limit-tokens-per-second', arity: 'value' },
  { name: 'log-level', arity: 'value' },
  { name: 'log-dir', arity: 'value' },
  { name: 'log-json', arity: 'boolean' },
  { name: 'disable-retries', arity: 'boolean' },
  { name: 'disable-circuit-breaker', arity: 'boolean' },
  { name: 'worker-startup-timeout-secs', arity: 'value' },
  { name: 'worker-startup-check-interval', arity: 'value' },
  { name: 'api-key', arity: 'value' },
  { name: 'disable-tokenizer-autoload', arity: 'boolean' },
  // Serve-only (§2.2): turns off the router fallback rule.
  { name: 'disable-arg-fallback', arity: 'boolean' },
];
