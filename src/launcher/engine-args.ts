/**
 * Reading and editing the engine passthrough list. The launcher never parses engine flags fully
 * (that would need vLLM's own parser); it only looks up the few values it needs and removes the
 * flags it owns (spec cli-and-api §2.7.1, §2.7.3, §8.1).
 */
import { isNegativeNumber, parseInteger } from '../util/numbers.js';

/** A token's key is the part before the first `=` (`--k=v` → `--k`). */
export function keyOf(token: string): string {
  const eq = token.indexOf('=');
  return eq > 0 ? token.slice(0, eq) : token;
}

/**
 * Value of the first occurrence of any of `names` (`--k v` or `--k=v`). A flag with no usable
 * value after it (end of list, or another flag) yields undefined, like a trailing flag in SMG.
 */
export function readEngineValue(args: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const token = args[i];
    const key = keyOf(token);
    if (!names.includes(key)) continue;
    if (key !== token) return token.slice(key.length + 1);
    const next = args[i + 1];
    if (next === undefined || (next.startsWith('-') && !isNegativeNumber(next))) return undefined;
    return next;
  }
  return undefined;
}

export type EngineInt =
  | { kind: 'absent' }
  | { kind: 'value'; value: number; raw: string }
  | { kind: 'invalid'; raw: string };

/** Integer form of readEngineValue; Python `int()` accepts surrounding blanks and a sign. */
export function readEngineInt(args: readonly string[], names: readonly string[]): EngineInt {
  const raw = readEngineValue(args, names);
  if (raw === undefined) return { kind: 'absent' };
  const value = parseInteger(raw);
  return value === null ? { kind: 'invalid', raw } : { kind: 'value', value, raw };
}

/** A vLLM-style positional model: only recognised as the first engine token (see cli/serve/serve-args). */
export function leadingPositional(args: readonly string[]): string | undefined {
  const first = args[0];
  return first !== undefined && !first.startsWith('-') ? first : undefined;
}

/** Keys of every passthrough token: "did the user supply this flag in any form?" */
export function suppliedKeys(args: readonly string[]): Set<string> {
  return new Set(args.map(keyOf));
}

/**
 * Drop the user's copies of launcher-owned flags (§2.7.3). Exact key match. Without `=`, the next
 * token is dropped too only when it exists and does not start with `-`, so a filtered boolean never
 * swallows the following flag (and a negative number is never taken as a value).
 */
export function filterOwnedArgs(args: readonly string[], owned: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i];
    const key = keyOf(token);
    if (!owned.includes(key)) {
      out.push(token);
      continue;
    }
    if (key === token) {
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith('-')) i += 1;
    }
  }
  return out;
}
