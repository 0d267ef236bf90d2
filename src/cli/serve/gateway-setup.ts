/**
 * The in-process gateway's configuration for `smg serve`. The launcher decides the serve-specific
 * settings (spec cli-and-api §2.8: worker URLs, backend pin, grouped engine count, dp≤1 overrides,
 * model-path default); the result is then run through `smg launch`'s own parser and validation,
 * so serve accepts exactly the values launch accepts and fails the same way — before any engine
 * is spawned (clone decision, §2.9: SMG validates only after launching the engines).
 */
import type { GatewayConfig } from '../../gateway/config.js';
import { configWarnings, validateGatewayConfig } from '../../gateway/validate-config.js';
import { routerFlag } from '../flags/table.js';
import { parseLaunchArgv } from '../launch/args.js';
import { buildGatewayConfig, toLaunchArgv, type LogLine } from './gateway-config.js';
import type { ServeConfig } from './serve-args.js';

/** A `--router-` setting `smg launch` has no flag for: serve-only, or SMG-compatibility only. */
const notALaunchFlag = (name: string): boolean => routerFlag(name)?.applies.includes('launch') !== true;
const isCompatOnly = (name: string): boolean => routerFlag(name)?.compat === true;

export type GatewaySetup =
  | {
      readonly ok: true;
      readonly config: GatewayConfig;
      /** The same gateway as `smg launch` flags (shown by --dry-run). */
      readonly launchArgv: readonly string[];
      /** §2.8 log lines and warnings, to log in order once the run is really starting. */
      readonly logLines: readonly LogLine[];
    }
  | { readonly ok: false; readonly exitCode: 1 | 2; readonly message: string };

/** The user's own `--router-*` values as launch flags (compat-only and serve-only ones left out). */
function userRouterArgv(router: ServeConfig['router']): string[] {
  const argv: string[] = [];
  for (const [name, value] of Object.entries(router)) {
    if (notALaunchFlag(name)) continue;
    if (value === true) argv.push(`--${name}`);
    else if (Array.isArray(value)) argv.push(`--${name}`, ...value);
    else argv.push(`--${name}=${value}`);
  }
  return argv;
}

/** Launch-parser messages name the launch flag; in serve the user typed `--router-<flag>`. */
function asRouterMessage(message: string): string {
  return message.replaceAll("'--", "'--router-");
}

export function serveGatewaySetup(serve: ServeConfig, workerUrls: readonly string[]): GatewaySetup {
  // The user's values first: the dp≤1 overrides below would otherwise hide a bad --router-policy.
  const own = parseLaunchArgv(userRouterArgv(serve.router));
  if (own.kind === 'error') return { ok: false, exitCode: 2, message: asRouterMessage(own.message) };

  const built = buildGatewayConfig(serve, workerUrls);
  const logLines: LogLine[] = [...built.logLines];

  const other = { ...built.config.other };
  for (const name of Object.keys(other)) {
    if (!isCompatOnly(name)) continue;
    delete other[name];
    logLines.push({ level: 'warn', message: `--router-${name} is accepted for SMG compatibility and has no effect in this gateway` });
  }

  const launchArgv = toLaunchArgv({ ...built.config, other });
  const parsed = parseLaunchArgv(launchArgv);
  if (parsed.kind !== 'config') {
    const message = parsed.kind === 'error' ? asRouterMessage(parsed.message) : 'unexpected --help';
    return { ok: false, exitCode: 2, message };
  }

  const invalid = validateGatewayConfig(parsed.config);
  if (invalid) return { ok: false, exitCode: 1, message: `Configuration validation failed: ${invalid}` };
  for (const w of configWarnings(parsed.config)) logLines.push({ level: 'warn', message: w });

  return { ok: true, config: parsed.config, launchArgv, logLines };
}
