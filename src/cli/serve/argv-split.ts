/**
 * Pass 1 of `smg serve` (spec cli-and-api §2.2, §8.1): split argv into serve's own flags, the
 * `--router-*` gateway flags, and the engine passthrough. Hand-rolled because yargs separates
 * unknown flags from their values; the passthrough must reach the engine verbatim and in order.
 *
 * Deliberate divergences from SMG's argparse: no prefix abbreviations (`--data-parallel 2` goes to
 * the engine instead of being swallowed as `--data-parallel-size`), and `--` is a real separator
 * (dropped; everything after it goes to the engine), which makes grouped engine DP reachable.
 */
import { usageError, type UsageError } from '../../launcher/launch-error.js';
import { isNegativeNumber } from '../../util/numbers.js';
import { ROUTER_PREFIX, spellings, type FlagValue } from '../flags/flag-def.js';
import { ROUTER_FLAGS, SERVE_OWN_FLAGS, toSpec, type FlagSpec } from '../flags/table.js';

export type { FlagValue } from '../flags/flag-def.js';

export interface SplitArgv {
  /** Serve's own flags that appeared, by canonical name. */
  readonly serve: Readonly<Record<string, FlagValue>>;
  /** `--router-*` flags that appeared, by canonical gateway name (prefix removed). */
  readonly router: Readonly<Record<string, FlagValue>>;
  /** Everything else, in original order, `--` removed. */
  readonly engineArgs: readonly string[];
}

export interface SplitOptions {
  /** Gateway flag table (unprefixed); defaults to the shared table's `--router-` flags. */
  readonly routerFlags?: readonly FlagSpec[];
}

const SERVE_SPECS: readonly FlagSpec[] = SERVE_OWN_FLAGS.map(toSpec);
const ROUTER_SPECS: readonly FlagSpec[] = ROUTER_FLAGS.map(toSpec);

export type SplitResult = { ok: true; split: SplitArgv } | { ok: false; error: UsageError };

interface Known {
  spec: FlagSpec;
  group: 'serve' | 'router';
  /** How argparse names the flag in messages, e.g. `--data-parallel-size/--dp-size`. */
  display: string;
}

/** argparse refuses a value that looks like an option (negative numbers excepted). */
function looksLikeFlag(token: string): boolean {
  return token.startsWith('-') && !isNegativeNumber(token);
}

function buildTable(routerFlags: readonly FlagSpec[]): Map<string, Known> {
  const table = new Map<string, Known>();
  const add = (spec: FlagSpec, group: Known['group'], prefix: string): void => {
    const names = spellings(spec, prefix);
    const known: Known = { spec, group, display: names.join('/') };
    for (const n of names) table.set(n, known);
  };
  for (const spec of SERVE_SPECS) add(spec, 'serve', '');
  for (const spec of routerFlags) add(spec, 'router', ROUTER_PREFIX);
  return table;
}

export function splitServeArgv(argv: readonly string[], opts: SplitOptions = {}): SplitResult {
  const table = buildTable(opts.routerFlags ?? ROUTER_SPECS);
  const serve: Record<string, FlagValue> = {};
  const router: Record<string, FlagValue> = {};
  const engineArgs: string[] = [];

  let i = 0;
  while (i < argv.length) {
    const token = argv[i];
    if (token === '--') {
      engineArgs.push(...argv.slice(i + 1));
      break;
    }
    const eq = token.indexOf('=');
    const key = token.startsWith('-') && eq > 0 ? token.slice(0, eq) : token;
    const inline = key === token ? undefined : token.slice(eq + 1);
    const known = table.get(key);

    if (!known) {
      // A typo'd gateway flag would otherwise reach the engine and fail there with a less helpful
      // message; SMG's strict vLLM pass 2 rejects it too.
      if (key.startsWith(`--${ROUTER_PREFIX}`)) {
        return { ok: false, error: usageError(`unrecognized arguments: ${token}`) };
      }
      engineArgs.push(token);
      i += 1;
      continue;
    }

    const into = known.group === 'serve' ? serve : router;
    const { name, arity } = known.spec;
    i += 1;

    if (arity === 'boolean') {
      if (inline !== undefined) {
        return { ok: false, error: usageError(`argument ${known.display}: ignored explicit argument '${inline}'`) };
      }
      into[name] = true;
      continue;
    }

    const values: string[] = [];
    if (inline !== undefined) {
      values.push(inline);
    } else if (arity === 'value') {
      if (i < argv.length && !looksLikeFlag(argv[i])) values.push(argv[i++]);
    } else {
      while (i < argv.length && !looksLikeFlag(argv[i])) values.push(argv[i++]);
    }
    if (values.length === 0) {
      const need = arity === 'value' ? 'expected one argument' : 'expected at least one argument';
      return { ok: false, error: usageError(`argument ${known.display}: ${need}`) };
    }

    if (arity === 'value') {
      into[name] = values[0];
    } else {
      const prev = into[name];
      into[name] = [...(Array.isArray(prev) ? prev : []), ...values];
    }
  }

  return { ok: true, split: { serve, router, engineArgs } };
}
