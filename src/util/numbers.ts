/**
 * The one set of number parsers for command-line text: `smg launch` and `smg serve` flag values
 * and the engine values the launcher reads from the passthrough all go through these, so "what
 * counts as a number" is decided once.
 */

const INTEGER = /^[+-]?\d+$/;
const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

/** Python `int()` on a flag value: surrounding blanks and a sign are fine, nothing else. */
export function parseInteger(raw: string): number | null {
  const trimmed = raw.trim();
  return INTEGER.test(trimmed) ? Number.parseInt(trimmed, 10) : null;
}

/** A finite decimal (`0.5`, `1e3`, `-2`); blank text is not a number. */
export function parseDecimal(raw: string): number | null {
  if (raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

/** argparse's exception to "a `-` token is an option": negative numbers are values. */
export function isNegativeNumber(token: string): boolean {
  return NEGATIVE_NUMBER.test(token);
}
