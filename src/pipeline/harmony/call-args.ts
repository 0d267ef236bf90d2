/**
 * Streaming one Harmony tool call's arguments.
 *
 * The final arguments text is decided from the whole message content `raw`:
 * - valid JSON → its compact form (`compactJson`, what every other tool parser sends, request-pipeline
 *   §11.3; vLLM's openai tool parser also re-serializes valid JSON, SMG passes the text through);
 * - invalid JSON (a truncated call, a model that wrote something else) → `raw` verbatim, as SMG and
 *   vLLM keep it, so nothing the model wrote is lost;
 * - valid JSON with a repeated key → also `raw` verbatim, because `JSON.parse` keeps the last
 *   value at the first key's position, which would contradict text already streamed.
 *
 * While the message is open its validity is unknown, so only text that both outcomes agree on may
 * be sent: the common prefix of `raw` itself and the stable compact prefix of `raw`
 * (`stableJsonPrefix`). A model writing compact JSON (gpt-oss usually does) streams almost every
 * character at once; spaced JSON streams up to the first space and the rest when the message ends.
 * Folding the pieces therefore always gives the final text, whatever the split.
 */
import { compactJson, stableJsonPrefix } from '../parsers/tools/json-args.js';

const WS = new Set([' ', '\t', '\n', '\r']);

/** Whether valid JSON text repeats a key inside one object (escape-insensitive). */
export function hasDuplicateKeys(json: string): boolean {
  if (!json.includes('{')) return false;
  const stack: Array<Set<string> | null> = [];
  let i = 0;
  while (i < json.length) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      const end = j + 1;
      let k = end;
      while (WS.has(json[k])) k++;
      const keys = stack[stack.length - 1];
      if (json[k] === ':' && keys) {
        const key = JSON.parse(json.slice(i, end)) as string;
        if (keys.has(key)) return true;
        keys.add(key);
      }
      i = end;
      continue;
    }
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    i++;
  }
  return false;
}

/** The arguments text a complete call reports (see the file comment). */
export function finalArguments(raw: string): string {
  const compact = compactJson(raw);
  return compact === null || hasDuplicateKeys(raw) ? raw : compact;
}

export class CallArgumentsStream {
  private raw = '';
  private sent = '';
  /** `raw` and its compact form differ at a position already reached: nothing more is safe. */
  private frozen = false;

  /** Adds content; returns the newly safe part ('' if none). */
  push(text: string): string {
    this.raw += text;
    if (this.frozen) return '';
    const raw = this.raw;
    const stable = stableJsonPrefix(raw);
    const limit = Math.min(raw.length, stable.length);
    let common = 0;
    while (common < limit && raw.charCodeAt(common) === stable.charCodeAt(common)) common++;
    // A real mismatch is permanent: that character of `raw` is fixed, and so is the compact form's.
    if (common < limit) this.frozen = true;
    if (common <= this.sent.length) return '';
    const diff = raw.slice(this.sent.length, common);
    this.sent = raw.slice(0, common);
    return diff;
  }

  /** The message ended: the rest of the final arguments text. */
  finish(): string {
    const final = finalArguments(this.raw);
    // `sent` is always a prefix of `raw`; it is a prefix of the compact form unless partial-json
    // disagreed with JSON.parse, in which case `raw` is the only honest completion.
    return final.startsWith(this.sent) ? final.slice(this.sent.length) : this.raw.slice(this.sent.length);
  }
}
