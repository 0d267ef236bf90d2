/**
 * The `--router-*` flags `smg serve` accepts: every `smg launch` flag (so a gateway setting is
 * spelled the same in both commands, and new launch flags reach serve without a second table),
 * plus the SMG router flags this gateway does not implement, which are accepted and ignored with
 * a warning so an SMG command line keeps working.
 */
import { GATEWAY_FLAGS } from '../../gateway/launch-flags.js';
import { ROUTER_FLAGS, type FlagSpec } from '../../launcher/serve-flags.js';

/** Serve's own --host/--port feed the gateway; there is no --router-host/--router-port (§2.2). */
const NOT_PREFIXED = new Set(['host', 'port']);

/** Serve-only: consumed by the fallback rule, never forwarded to the gateway. */
const SERVE_ONLY = new Set(['disable-arg-fallback']);

const launchNames = new Set(GATEWAY_FLAGS.flatMap((d) => [d.name, ...(d.aliases ?? [])]));

export const SERVE_ROUTER_FLAGS: readonly FlagSpec[] = [
  ...GATEWAY_FLAGS.filter((d) => !NOT_PREFIXED.has(d.name)).map(
    (d): FlagSpec => ({
      name: d.name,
      aliases: d.aliases,
      arity: d.kind === 'bool' ? 'boolean' : d.kind === 'list' ? 'multi' : 'value',
    }),
  ),
  ...ROUTER_FLAGS.filter((f) => !launchNames.has(f.name)),
];

/** Router settings SMG knows but this gateway has no use for (accepted, warned, dropped). */
export function isCompatOnlyRouterFlag(name: string): boolean {
  return !launchNames.has(name) && !SERVE_ONLY.has(name);
}
