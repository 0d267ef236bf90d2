/**
 * The nesting limit every JSON body passes before anything walks it. Request bodies are parsed,
 * then validated, echoed, stringified and handed to templates by recursive code (JSON.stringify,
 * Jinja, schema checks); 5,000 nested arrays in one 30 KB body overflowed the stack in
 * JSON.stringify. The limit is serde_json's (SMG's body parser): its deserializer starts with
 * `remaining_depth = 128` and refuses the container that brings it to 0, so 127 levels parse and
 * the 128th is `recursion limit exceeded at line L column C` (serde-rs/json src/de.rs,
 * `check_recursion!`). No real client nests that deep: a chat body with tool schemas is about 10.
 */

/** The container that reaches this depth is refused (serde_json's `remaining_depth` start). */
export const MAX_JSON_DEPTH = 128;

/** Outside strings only brackets and quotes matter; inside, only the closing quote and escapes. */
const STRUCTURAL = /["[\]{}]/g;
const IN_STRING = /["\\]/g;

/** Where a depth scan stands: resumable, so a long text can be scanned a slice at a time. */
export interface DepthScan {
  /** Next offset to look at. */
  i: number;
  depth: number;
  /** Whether `i` is inside a string (past its opening quote). */
  inString: boolean;
}

/**
 * The offset of the first `[` or `{` that opens the `limit`-th nested container, or -1. A linear
 * scan of the text (regexes jump over string contents and scalars), run before JSON.parse so no
 * deep value is ever built; malformed text is left for JSON.parse to report.
 */
export function tooDeepAt(text: string, limit = MAX_JSON_DEPTH): number {
  return scanDepth(text, { i: 0, depth: 0, inString: false }, limit, Infinity) as number;
}

/**
 * `tooDeepAt` from `scan` on: the offset (or -1) once settled, or null when `until`
 * (performance.now()) passed first and `scan` holds where to resume. The clock is read every 64
 * matches, so a slice overruns `until` by microseconds at most.
 */
export function scanDepth(text: string, scan: DepthScan, limit: number, until: number): number | null {
  let depth = scan.depth;
  let i = scan.i;
  let inString = scan.inString;
  for (let n = 1; ; n++) {
    if ((n & 63) === 0 && performance.now() >= until) {
      scan.i = i;
      scan.depth = depth;
      scan.inString = inString;
      return null;
    }
    if (inString) {
      // i is past the opening quote: the next quote or backslash decides.
      // test(), not exec(): the match is one character, found at lastIndex - 1, and no match array
      // is made per quote and bracket (they were 6.5 % of the gateway's allocated bytes, issue 30).
      IN_STRING.lastIndex = i;
      if (!IN_STRING.test(text)) return -1;
      const s = IN_STRING.lastIndex - 1;
      if (text.charCodeAt(s) === 0x5c) {
        i = s + 2;
      } else {
        i = s + 1;
        inString = false;
      }
      continue;
    }
    STRUCTURAL.lastIndex = i;
    if (!STRUCTURAL.test(text)) return -1;
    const at = STRUCTURAL.lastIndex - 1;
    const c = text.charCodeAt(at);
    i = at + 1;
    if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth >= limit) return at;
    } else {
      depth--;
    }
  }
}

/** serde_json's wording: `recursion limit exceeded at line L column C` (1-based, C counts characters). */
export function depthErrorText(text: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k !== -1 && k < at; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return `recursion limit exceeded at line ${line} column ${at - lineStart + 1}`;
}

/** The refusal text for `text`, or null when it nests within the limit. */
export function jsonDepthProblem(text: string, limit = MAX_JSON_DEPTH): string | null {
  const at = tooDeepAt(text, limit);
  return at < 0 ? null : depthErrorText(text, at);
}
