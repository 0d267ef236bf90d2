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

/**
 * yargs' `Unknown argument(s): a, b` in the Rust gateway's (clap's) words, naming the first
 * token as the user typed it: `unexpected argument '--bogus-flag' found`.
 */
function clapMessage(message: string, argv: readonly string[]): string {
  const m = /^Unknown arguments?: (.+)$/.exec(message);
  if (!m) return message;
  const first = m[1].split(', ')[0];
  const typed = argv.find((t) => t.split('=')[0].replace(/^-+/, '') === first) ?? first;
  return `unexpected argument '${typed.split('=')[0]}' found`;
}

/** The startup ipc:// workers speak a ZMQ dialect; only these backends name one. */
const ZMQ_BACKENDS = ['vllm', 'tokenspeed'];

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
    // No camel-case aliases: yargs would report `--bogus-flag` as "bogus-flag, bogusFlag".
    .parserConfiguration({ 'parse-positional-numbers': false, 'boolean-negation': false, 'camel-case-expansion': false })
    .fail((msg: string | null, err: Error | undefined) => {
      throw new LaunchUsageError(clapMessage(err?.message ?? msg ?? 'invalid arguments', argv));
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
    const config = gatewayConfigFromFlags(values);
    if (config.backend !== null && !ZMQ_BACKENDS.includes(config.backend) && config.workerUrls.some((u) => u.startsWith('ipc://'))) {
      throw new LaunchUsageError(
        `--backend ${config.backend} cannot drive ipc:// workers: ZMQ direct workers speak the vllm or tokenspeed wire, so pass --backend vllm or --backend tokenspeed`,
      );
    }
    return { kind: 'config', config };
  } catch (err) {
    return { kind: 'error', message: (err as Error).message };
  }
}
