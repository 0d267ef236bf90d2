/**
 * What one command-line flag is, once: its spelling, arity and type, choices, range, default, help
 * text, group, and where it applies. The `smg launch` parser, the `smg serve` argv split, the
 * gateway configuration and both `--help` texts are all derived from rows of this shape
 * (src/cli/flags/table.ts), so a flag is never described twice.
 */
import type { GatewayConfig } from '../../gateway/config.js';

/** `bool` takes no value; `list` takes one or more (repeats accumulate); the rest exactly one. */
export type FlagType = 'bool' | 'string' | 'int' | 'number' | 'list';

/**
 * Where a flag is accepted: `launch` = `smg launch --<name>`, `serve` = `smg serve --<name>`,
 * `router` = `smg serve --router-<name>` (a gateway setting inside serve, spec cli-and-api §2.1).
 */
export type FlagScope = 'launch' | 'serve' | 'router';

/** Range checks applied after parsing a number; texts in `rangeProblem`. */
export type FlagRange = 'count' | 'port' | 'nonNegative' | 'positive';

export type FlagGroup =
  | 'Serve'
  | 'Workers'
  | 'Routing'
  | 'Resilience'
  | 'Discovery'
  | 'Server'
  | 'Health'
  | 'Limits'
  | 'Logging'
  | 'History'
  | 'Tuning'
  | 'Options';

export interface FlagDef {
  /** Canonical name without dashes, e.g. `data-parallel-size`. */
  readonly name: string;
  /** One-letter aliases are spelled `-x`, longer ones `--xyz`. */
  readonly aliases?: readonly string[];
  readonly type: FlagType;
  readonly applies: readonly FlagScope[];
  readonly group: FlagGroup;
  readonly describe: string;
  /** Help text for the `--router-` form when serve treats the setting differently from launch. */
  readonly routerDescribe?: string;
  readonly choices?: readonly string[];
  readonly range?: FlagRange;
  /** Placeholder in help; when given, the choices are not listed again. */
  readonly metavar?: string;
  /** The gateway setting a launch/router flag sets; its default is the gateway's own (config.ts). */
  readonly key?: keyof GatewayConfig;
  /** Default of a serve flag (gateway flags take theirs from `defaultGatewayConfig`). */
  readonly default?: string | number;
  /** Help text for a default that is not a constant (environment, another flag). */
  readonly defaultText?: string;
  /** SMG router setting this gateway has no use for: accepted, warned about, dropped. */
  readonly compat?: true;
}

/** A boolean flag is `true`; a value flag the last value given; a multi flag every value, accumulated. */
export type FlagValue = true | string | string[];

/** The one reader of a single-value flag: the last value given, undefined when absent. */
export function lastValue(v: FlagValue | undefined): string | undefined {
  if (v === undefined || v === true) return undefined;
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/** boolean: no value; value: exactly one; multi: one or more, up to the next `-` token. */
export type FlagArity = 'boolean' | 'value' | 'multi';

export function arityOf(type: FlagType): FlagArity {
  return type === 'bool' ? 'boolean' : type === 'list' ? 'multi' : 'value';
}

/** `--router-model-path` etc. (spec cli-and-api §4.2: "in serve prefix each with --router-"). */
export const ROUTER_PREFIX = 'router-';

/** How a flag is typed on the command line: `-h`, `--dp-size`, `--router-model`. */
export function dashed(name: string, prefix = ''): string {
  return name.length === 1 && prefix === '' ? `-${name}` : `--${prefix}${name}`;
}

/** Every spelling of a flag, canonical first. */
export function spellings(def: Pick<FlagDef, 'name' | 'aliases'>, prefix = ''): string[] {
  return [def.name, ...(def.aliases ?? [])].map((n) => dashed(n, prefix));
}

/**
 * The problem with a number outside the flag's range, or null. The count text is the gateway's
 * Rust message for `--zmq-engine-count` (`invalid value '<v>'; expected a count >= 1`).
 */
export function rangeProblem(range: FlagRange | undefined, n: number, raw: string): string | null {
  switch (range) {
    case 'count':
      return n >= 1 ? null : `invalid value '${raw}'; expected a count >= 1`;
    case 'port':
      return n >= 1 && n <= 65535 ? null : `invalid value '${raw}'; expected a port in 1..65535`;
    case 'nonNegative':
      return n >= 0 ? null : `invalid value '${raw}'; expected a number >= 0`;
    case 'positive':
      return n > 0 ? null : 'expected a number > 0';
    case undefined:
      return null;
  }
}
