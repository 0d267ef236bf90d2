/**
 * Hand-written for speed (see encoder.ts): the GPT-2 byte-level alphabet and a UTF-8 writer into
 * a reusable buffer, so a word's bytes are produced without a TextEncoder call per word.
 */

/**
 * Byte → the character that stands for it in a byte-level vocab (GPT-2's `bytes_to_unicode`;
 * huggingface/tokenizers tokenizers/src/pre_tokenizers/byte_level.rs `bytes_char`): printable
 * Latin-1 bytes stand for themselves, the other 68 bytes for U+0100 upwards in byte order.
 */
export function byteLevelAlphabet(): string[] {
  const chars = new Array<string>(256);
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    chars[b] = String.fromCharCode(printable ? b : next++);
  }
  return chars;
}

/**
 * Writes the UTF-8 bytes of `text` into `out` (which must hold 3 bytes per UTF-16 unit) and
 * returns their count. A lone surrogate becomes EF BF BD (U+FFFD), as TextEncoder writes it: the
 * JS library's ByteLevel step encodes that way, and the fast encoder matches it.
 */
export function writeUtf8(text: string, out: Uint8Array): number {
  let n = 0;
  const len = text.length;
  for (let i = 0; i < len; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < len ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        out[n++] = 0xf0 | (c >> 18);
        out[n++] = 0x80 | ((c >> 12) & 0x3f);
        out[n++] = 0x80 | ((c >> 6) & 0x3f);
        out[n++] = 0x80 | (c & 0x3f);
      } else {
        out[n++] = 0xef;
        out[n++] = 0xbf;
        out[n++] = 0xbd;
      }
    } else {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
}
