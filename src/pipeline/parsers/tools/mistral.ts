/**
 * `mistral`: calls after the `[TOOL_CALLS]` control token (request-pipeline §11.3), in either of
 * Mistral's two encodings:
 *
 * - tokenizers before v11 (Mistral-7B-Instruct-v0.3, Mixtral): `[TOOL_CALLS] [{"name": …,
 *   "arguments": {…}}, …]` — one marker, a JSON array of call objects (a single object is accepted
 *   too);
 * - v11 and later (Mistral Small 3.1+, Magistral, Devstral, Ministral 3): one marker per call,
 *   `[TOOL_CALLS]NAME[ARGS]{…}`; the templates render `'[TOOL_CALLS]' + name + '[ARGS]' +
 *   arguments` (e.g. mistralai/Devstral-Small-2507 chat_template.jinja), and decoding without the
 *   `[ARGS]` token gives `[TOOL_CALLS]NAME{…}`, which vLLM's parser also reads
 *   (vllm/tool_parsers/mistral_tool_parser.py: the name ends at the first `{`). An optional
 *   `[CALL_ID]id` between name and arguments is skipped.
 *
 * The name must be a declared tool written without spaces; anything else after the marker stays
 * text, marker included.
 */
import { Step } from './json-call.js';
import { JsonArgsReader } from './json-args-reader.js';
import { JsonListParser } from './json-list.js';
import { Match } from '../markers.js';
import { FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, Next, toolParserSpec } from './stream-base.js';
import type { ToolSchema } from './types.js';

const MARKER = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
const CALL_ID = '[CALL_ID]';
const STARTS = [MARKER];
const NAME_LIMIT = 256;
const ID_LIMIT = 64;

const enum M {
  Text,
  Open,
  Name,
  CallId,
  Args,
  List,
  After,
}

/** Characters that cannot be part of a tool name written after the marker. */
function endsName(c: number): boolean {
  return c <= 0x20 || c === 0x22 || c === 0x27 || c === 0x28 || c === 0x29 || c === 0x2c || c === 0x3b || c === 0x3c || c === 0x3e || c === 0x5d || c === 0x7d;
}

class MistralToolParser extends JsonListParser {
  private m = M.Text;
  private readonly starts = this.markerSet(STARTS);
  protected readonly startChars = '[';

  protected inPlainText(): boolean {
    return this.m === M.Text;
  }

  private nameStart = 0;
  private name = '';
  private args: JsonArgsReader | null = null;

  protected run(): void {
    while (!this.passthrough) {
      switch (this.m) {
        case M.Text:
          if (this.scanText(this.starts) === null) return;
          this.setCand(this.pos);
          this.pos += MARKER.length;
          this.m = M.Open;
          break;
        case M.Open: {
          if (!this.skipWs()) {
            if (!this.final) return;
            this.releaseCand(this.buf.length);
            this.m = M.Text;
            break;
          }
          const c = this.buf.charCodeAt(this.pos);
          if (c === 0x5b) {
            this.startArray();
            this.m = M.List;
          } else if (c === 0x7b) {
            this.startObject();
            this.m = M.List;
          } else {
            this.nameStart = this.pos;
            this.m = M.Name;
          }
          break;
        }
        case M.Name:
          if (!this.readName()) return;
          break;
        case M.CallId:
          if (!this.skipCallId()) return;
          break;
        case M.Args: {
          const r = this.args as JsonArgsReader;
          const s = r.step(this.buf, this.final);
          this.pos = r.pos;
          if (s === Step.Done) this.m = M.After;
          else if (s === Step.Broken) this.m = M.Text;
          else if (this.final) {
            r.cutOff();
            this.pos = this.buf.length;
            this.m = M.After;
          } else {
            r.rebase(this.dropConsumed());
            return;
          }
          break;
        }
        case M.List: {
          const next = this.stepList();
          if (next === Next.Wait) return;
          this.m = next === Next.Done ? M.After : M.Text;
          break;
        }
        case M.After: {
          const f = this.follow(STARTS);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) {
            this.m = M.Text;
            break;
          }
          this.setCand(this.followWs);
          this.pos += MARKER.length;
          this.m = M.Open;
          break;
        }
      }
    }
  }

  /** Reads the name up to `[ARGS]`, `[CALL_ID]` or `{`; returns false when more text is needed. */
  private readName(): boolean {
    const buf = this.buf;
    let i = this.pos;
    for (; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c === 0x5b || c === 0x7b) break;
      if (endsName(c) || i - this.nameStart >= NAME_LIMIT) return this.reject(i);
    }
    this.pos = i;
    if (i === buf.length) {
      if (!this.final) return false;
      return this.reject(i);
    }
    this.name = buf.slice(this.nameStart, i);
    if (this.name.length === 0 || !this.declared(this.name)) return this.reject(i);
    if (buf.charCodeAt(i) === 0x7b) return this.commit(i);
    const a = this.match(ARGS);
    if (a === Match.Yes) return this.commit(i + ARGS.length);
    const id = this.match(CALL_ID);
    if (id === Match.Yes) {
      this.pos = i + CALL_ID.length;
      this.nameStart = this.pos;
      this.m = M.CallId;
      return true;
    }
    if (a === Match.Partial || id === Match.Partial) return false;
    return this.reject(i);
  }

  /** Skips a call id up to `[ARGS]` (or `{`). */
  private skipCallId(): boolean {
    const buf = this.buf;
    let i = this.pos;
    while (i < buf.length && buf.charCodeAt(i) !== 0x5b && buf.charCodeAt(i) !== 0x7b) {
      if (endsName(buf.charCodeAt(i)) || i - this.nameStart >= ID_LIMIT) return this.reject(i);
      i++;
    }
    this.pos = i;
    if (i === buf.length) return this.final ? this.reject(i) : false;
    if (buf.charCodeAt(i) === 0x7b) return this.commit(i);
    const a = this.match(ARGS);
    if (a === Match.Yes) return this.commit(i + ARGS.length);
    return a === Match.Partial ? false : this.reject(i);
  }

  private commit(argsAt: number): boolean {
    const tool = this.out.startCall(this.name);
    this.args = new JsonArgsReader(this.out, tool, argsAt);
    this.pos = argsAt;
    this.m = M.Args;
    return true;
  }

  /** Not a call: the marker and what was read stay text. */
  private reject(at: number): boolean {
    this.releaseCand(at);
    this.m = M.Text;
    return true;
  }
}

export const mistralToolParser = toolParserSpec('mistral', (tools: readonly ToolSchema[]) => new MistralToolParser(tools));
