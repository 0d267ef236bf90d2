/**
 * Reading the headers of tag-spelled calls (`<invoke name="X">`, `NAME<arg_key>`,
 * `functions.NAME:0<|tool_call_argument_begin|>`, …): small readers over the text right after an
 * opening tag that answer with what they read and its length, 'more' while the text may still
 * complete it, or 'invalid'.
 */

/** Longest header (call name, attributes) a parser waits for before deciding it is not a call. */
export const HEADER_LIMIT = 1024;

export type HeaderRead = { name: string; length: number } | 'more' | 'invalid';
export type ParamRead = { key: string; type?: string; length: number } | 'more' | 'invalid';

/**
 * Headers longer than HEADER_LIMIT are not headers. Judged on the header's own length, so that a
 * streamed parse (which gives up while waiting) and a whole-text parse decide alike.
 */
export function limited<T extends { length: number }>(r: T | 'more' | 'invalid', buffered: number, final: boolean): T | 'more' | 'invalid' {
  if (r === 'more') return final || buffered > HEADER_LIMIT ? 'invalid' : 'more';
  if (r !== 'invalid' && r.length > HEADER_LIMIT) return 'invalid';
  return r;
}

const ATTR = /([A-Za-z_][\w:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** `key="value"` pairs of a tag's attribute text (XML entities for `"` and `&` decoded). */
export function readAttributes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(ATTR)) {
    const v = m[2] ?? m[3] ?? '';
    out.set(m[1], v.replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
  }
  return out;
}

/**
 * Reads `␠name="X">` (the rest of `<invoke`, `<parameter`, …): the name attribute and the length
 * through `>`. An unquoted value is accepted too; a `<` before the `>` means it is not a tag.
 */
export function readNameAttribute(buf: string, final: boolean): { name: string; length: number } | 'more' | 'invalid' {
  let gt = -1;
  for (let i = 0; i < buf.length; i++) {
    const c = buf.charCodeAt(i);
    if (c === 0x3c) return 'invalid';
    if (c === 0x3e) {
      gt = i;
      break;
    }
  }
  if (gt < 0) return final ? 'invalid' : 'more';
  const m = /^\s+name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'/]+))\s*\/?$/.exec(buf.slice(0, gt));
  if (!m) return 'invalid';
  return { name: (m[1] ?? m[2] ?? m[3]).trim(), length: gt + 1 };
}

/**
 * Matches `literal` at `pos`: the position after it, 'more' when the buffer ends inside it, or
 * 'invalid'. Used to read fixed header syntax a character at a time.
 */
export function expectLiteral(buf: string, pos: number, literal: string): number | 'more' | 'invalid' {
  const rest = buf.length - pos;
  if (rest >= literal.length) return buf.startsWith(literal, pos) ? pos + literal.length : 'invalid';
  return literal.startsWith(buf.slice(pos)) ? 'more' : 'invalid';
}

/** The first index at or after `pos` that is not whitespace (buf.length if none). */
export function skipSpace(buf: string, pos: number): number {
  let i = pos;
  while (i < buf.length) {
    const c = buf.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}
