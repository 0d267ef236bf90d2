/**
 * `smg launch` flag values → the gateway's typed configuration, over its defaults. Messages are
 * clap-style (the Rust gateway's), keeping the raw text the user typed.
 */
import { defaultGatewayConfig, type GatewayConfig } from '../../gateway/config.js';
import { parseDecimal, parseInteger } from '../../util/numbers.js';
import { lastValue, rangeProblem, type FlagDef, type FlagValue } from './flag-def.js';
import { LAUNCH_FLAGS } from './table.js';

/** A bad `smg launch` argument; the command prints `error: <message>` and exits 2. */
export class LaunchUsageError extends Error {
  override name = 'LaunchUsageError';
}

function parseNumber(def: FlagDef, raw: string): number {
  const n = def.type === 'int' ? parseInteger(raw) : parseDecimal(raw);
  if (n === null) {
    throw new LaunchUsageError(`invalid value '${raw}' for '--${def.name}': expected ${def.type === 'int' ? 'an integer' : 'a number'}`);
  }
  const problem = rangeProblem(def.range, n, raw);
  if (problem) throw new LaunchUsageError(`invalid value '${raw}' for '--${def.name} <N>': ${problem}`);
  return n;
}

/**
 * Values keyed by launch flag name (no dashes) → a config over the defaults.
 * Throws LaunchUsageError for bad values.
 */
export function gatewayConfigFromFlags(values: Readonly<Record<string, FlagValue | undefined>>): GatewayConfig {
  const cfg = defaultGatewayConfig() as unknown as Record<string, unknown>;
  for (const def of LAUNCH_FLAGS) {
    const v = values[def.name];
    if (v === undefined || def.key === undefined) continue;
    if (def.type === 'list') {
      cfg[def.key] = (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).filter((s) => s !== '');
      continue;
    }
    if (def.type === 'bool') {
      cfg[def.key] = v === true || lastValue(v) === 'true';
      continue;
    }
    const raw = lastValue(v) ?? '';
    if (def.choices && !def.choices.includes(raw)) {
      throw new LaunchUsageError(`invalid value '${raw}' for '--${def.name}': possible values are ${def.choices.join(', ')}`);
    }
    cfg[def.key] = def.type === 'int' || def.type === 'number' ? parseNumber(def, raw) : raw;
  }
  return cfg as unknown as GatewayConfig;
}
