/** Character classes the JSON readers share (code units in, answers out; no allocation). */

/** JSON whitespace: space, tab, newline, carriage return. */
export function isJsonWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** A character that can continue a JSON number token (validated when the token ends). */
export function isJsonNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** The value of a hex digit, or -1. */
export function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** The code unit a one-character JSON escape (`\n`, `\"`, …) stands for, or -1 (`u` is handled apart). */
export function jsonEscape(c: number): number {
  switch (c) {
    case 0x22:
    case 0x5c:
    case 0x2f:
      return c;
    case 0x62:
      return 8;
    case 0x66:
      return 12;
    case 0x6e:
      return 10;
    case 0x72:
      return 13;
    case 0x74:
      return 9;
    default:
      return -1;
  }
}
