/**
 * Every flag of `smg launch` and `smg serve`, one row each, and the views the parsers and help
 * texts take of it. A spelling may appear in two rows only when the commands mean different things
 * by it (serve's --host is the gateway's bind host with serve's default; launch's is the gateway's).
 */
import { arityOf, type FlagArity, type FlagDef, type FlagScope } from './flag-def.js';
import { GATEWAY_FLAGS } from './gateway-flags.js';
import { SERVE_FLAGS } from './serve-flags.js';

/** Both commands take -h/--help; the parsers see it before anything else. */
export const HELP_FLAG: FlagDef = {
  name: 'help', aliases: ['h'], type: 'bool', applies: ['serve', 'launch'], group: 'Options', describe: 'Show this help',
};

export const ALL_FLAGS: readonly FlagDef[] = [...SERVE_FLAGS, ...GATEWAY_FLAGS, HELP_FLAG];

export function flagsFor(scope: FlagScope): FlagDef[] {
  return ALL_FLAGS.filter((f) => f.applies.includes(scope));
}

/** `smg launch` flags (help included). */
export const LAUNCH_FLAGS: readonly FlagDef[] = flagsFor('launch');
/** `smg serve`'s own, unprefixed flags (help included). */
export const SERVE_OWN_FLAGS: readonly FlagDef[] = flagsFor('serve');
/** The gateway settings `smg serve` takes as `--router-<name>` (names without the prefix). */
export const ROUTER_FLAGS: readonly FlagDef[] = flagsFor('router');

const routerByName = new Map(ROUTER_FLAGS.map((f) => [f.name, f]));

export function routerFlag(name: string): FlagDef | undefined {
  return routerByName.get(name);
}

export function serveFlag(name: string): FlagDef {
  const def = SERVE_OWN_FLAGS.find((f) => f.name === name);
  if (!def) throw new Error(`no smg serve flag --${name}`);
  return def;
}

/** What the serve argv splitter needs of a flag: its spellings and how many tokens it takes. */
export interface FlagSpec {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly arity: FlagArity;
}

export function toSpec(def: FlagDef): FlagSpec {
  return { name: def.name, aliases: def.aliases, arity: arityOf(def.type) };
}
