/**
 * A string as JSON (what JSON.stringify writes for it), straight into a byte buffer as UTF-8.
 *
 * A token's text is a few characters, nearly always printable ASCII with nothing to escape: those
 * are copied byte by byte. Anything else (a quote, a backslash, a control character, non-ASCII)
 * sends the whole string through JSON.stringify and Buffer#write, so the bytes are exactly
 * JSON.stringify's in every case (escapes, lone surrogates as \udXXX, U+2028 left as is).
 */

/** Writes `text` as a JSON string at `pos`; returns the position after it. The caller reserved 2 + 6 × length bytes. */
export function writeJsonString(buf: Buffer, pos: number, text: string): number {
  const n = text.length;
  buf[pos] = 0x22;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    // Printable ASCII other than `"` and `\` stands for itself.
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) {
      buf[pos + 1 + i] = c;
      continue;
    }
    return pos + buf.write(JSON.stringify(text), pos);
  }
  buf[pos + 1 + n] = 0x22;
  return pos + n + 2;
}
