/**
 * The token-level pieces of Python literals that py-literal.ts reads: character classes, the
 * JSON spelling of bare names and of number tokens, and the escape table.
 */
export const STRING_PREFIXES = new Set(['r', 'u', 'b', 'f', 'br', 'rb', 'fr', 'rf']);
export const IDENT_LIMIT = 256;

export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c;
}

export function isIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

export function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 0x30 && c <= 0x39);
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The JSON spelling of a bare Python name used as a value. */
export function nameValue(name: string): string {
  switch (name) {
    case 'True':
    case 'true':
      return 'true';
    case 'False':
    case 'false':
      return 'false';
    case 'None':
    case 'null':
      return 'null';
    default:
      return JSON.stringify(name);
  }
}

/** A cut-off bare name: the literal it can only be the start of, else its string. */
export function cutName(name: string): string {
  for (const lit of ['True', 'False', 'None', 'true', 'false', 'null']) if (lit.startsWith(name)) return nameValue(lit);
  return JSON.stringify(name);
}

/** The JSON number a complete Python number token stands for, or null. */
export function pyNumber(token: string, negative: boolean): string | null {
  const t = token.replace(/_/g, '');
  if (token.startsWith('_') || token.endsWith('_') || token.includes('__')) return null;
  let v: number;
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) v = parseInt(t.slice(2), 16);
  else if (/^0[oO][0-7]+$/.test(t)) v = parseInt(t.slice(2), 8);
  else if (/^0[bB][01]+$/.test(t)) v = parseInt(t.slice(2), 2);
  else if (/^\d+$/.test(t)) {
    // Decimal integers keep every digit (JSON has no size limit; a double would round them).
    const digits = t.replace(/^0+(?=\d)/, '');
    return negative && digits !== '0' ? '-' + digits : digits;
  } else if (/^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(t)) v = Number(t);
  else return null;
  if (!Number.isFinite(v)) return null;
  return JSON.stringify(negative ? -v : v);
}

/** Python's one-character escapes (after a backslash), decoded; a backslash-newline joins lines. */
export const PY_ESCAPES: Readonly<Record<number, string>> = {
  0x5c: '\\',
  0x27: "'",
  0x22: '"',
  0x61: '\x07',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
  0x76: '\v',
  0x0a: '',
};
