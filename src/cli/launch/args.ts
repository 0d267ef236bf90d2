/**
 * `smg launch` argv → GatewayConfig. yargs does the tokenizing (strict: unknown flags are errors,
 * no prefix abbreviations), with its options built from the shared flag table; values are
 * converted by the table so messages keep the raw text.
 */
import yargs from 'yargs';
import type { GatewayConfig } from '../../gateway/config.js';
import type { FlagDef, FlagValue } from '../flags/flag-def.js';
import { gatewayConfigFromFlags, LaunchUsageError } from '../flags/gateway-values.js';
import { HELP_FLAG, LAUNCH_FLAGS } from '../flags/table.js';
import { launchHelp } from './help.js';

export type LaunchParse =
  | { kind: 'config'; config: GatewayConfig }
  | { kind: 'help'; text: string }
  | { kind: 'error'; message: string };

/** yargs' value (string, boolean, or an array of them after repeats) in the table's terms. */
function fromYargs(def: FlagDef, v: unknown): FlagValue | undefined {
  if (v === undefined) return undefined;
  if (def.type === 'list') return (Array.isArray(v) ? v : [v]).map(String);
  // Repeating a single-value flag keeps the last value (argparse semantics).
  const last: unknown = Array.isArray(v) ? v[v.length - 1] : v;
  if (def.type === 'bool') return last === true || last === 'true' ? true : undefined;
  return String(last ?? '');
}

export function parseLaunchArgv(argv: readonly string[]): LaunchParse {
  // Help first, whatever else is on the line (yargs' own help is off).
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help', text: launchHelp() };
  const flags = LAUNCH_FLAGS.filter((def) => def !== HELP_FLAG);
  let y = yargs([...argv])
    .scriptName('smg launch')
    .help(false)
    .version(false)
    .strict()
    .exitProcess(false)
    .parserConfiguration({ 'parse-positional-numbers': false, 'boolean-negation': false })
    .fail((msg: string | null, err: Error | undefined) => {
      throw new LaunchUsageError(err?.message ?? msg ?? 'invalid arguments');
    });
  for (const def of flags) {
    y = y.option(def.name, {
      alias: def.aliases ? [...def.aliases] : undefined,
      type: def.type === 'list' ? 'array' : def.type === 'bool' ? 'boolean' : 'string',
      string: def.type === 'list' ? true : undefined,
      requiresArg: def.type !== 'bool' && def.type !== 'list',
    });
  }
  try {
    const parsed = y.parseSync() as Record<string, unknown>;
    const values: Record<string, FlagValue | undefined> = {};
    for (const def of flags) values[def.name] = fromYargs(def, parsed[def.name]);
    return { kind: 'config', config: gatewayConfigFromFlags(values) };
  } catch (err) {
    return { kind: 'error', message: (err as Error).message };
  }
}
