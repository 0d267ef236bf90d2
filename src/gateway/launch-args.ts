/**
 * `smg launch` argv → GatewayConfig. yargs does the tokenizing (strict: unknown flags are errors,
 * no prefix abbreviations); values are converted by the flag table so messages keep the raw text.
 */
import yargs from 'yargs';
import type { GatewayConfig } from './config.js';
import { GATEWAY_FLAGS, UsageError, gatewayConfigFromFlags, launchHelp, type RawFlagValue } from './launch-flags.js';

export type LaunchParse =
  | { kind: 'config'; config: GatewayConfig }
  | { kind: 'help'; text: string }
  | { kind: 'error'; message: string };

export function parseLaunchArgv(argv: readonly string[]): LaunchParse {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help', text: launchHelp() };
  let y = yargs([...argv])
    .scriptName('smg launch')
    .help(false)
    .version(false)
    .strict()
    .exitProcess(false)
    .parserConfiguration({ 'parse-positional-numbers': false, 'boolean-negation': false })
    .fail((msg: string | null, err: Error | undefined) => {
      throw new UsageError(err?.message ?? msg ?? 'invalid arguments');
    });
  for (const def of GATEWAY_FLAGS) {
    y = y.option(def.name, {
      alias: def.aliases,
      type: def.kind === 'list' ? 'array' : def.kind === 'bool' ? 'boolean' : 'string',
      string: def.kind === 'list' ? true : undefined,
      requiresArg: def.kind !== 'bool' && def.kind !== 'list',
    });
  }
  try {
    const parsed = y.parseSync() as Record<string, unknown>;
    const values: Record<string, RawFlagValue | undefined> = {};
    for (const def of GATEWAY_FLAGS) values[def.name] = parsed[def.name] as RawFlagValue | undefined;
    return { kind: 'config', config: gatewayConfigFromFlags(values) };
  } catch (err) {
    return { kind: 'error', message: (err as Error).message };
  }
}
