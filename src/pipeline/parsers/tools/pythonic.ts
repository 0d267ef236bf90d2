/**
 * `pythonic`: a Python list of keyword-argument calls, `[get_weather(city="Paris"), search(q='x')]`
 * (request-pipeline §11.3; Llama 3.2/4 "pythonic" prompts, SMG crates/tool_parser/src/parsers/
 * pythonic.rs, vllm/tool_parsers/pythonic_tool_parser.py). Llama 4 may wrap the list in
 * `<|python_start|>` … `<|python_end|>` (vllm/tool_parsers/llama4_pythonic_tool_parser.py); both
 * tokens are consumed with the list. The list may stand anywhere in the text; it is a call list
 * when it opens with `NAME(` for a declared NAME. Values are Python literals (py-literal.ts). A
 * later element naming an undeclared tool is released as text in its place.
 */
import { isJsonWs } from './char-class.js';
import { Ev } from './json-scan.js';
import { PyScanner, isIdentChar, isIdentStart } from './py-literal.js';
import { FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, ToolStreamParser, toolParserSpec } from './stream-base.js';
import type { ToolSchema } from './types.js';

const PY_START = '<|python_start|>';
const PY_END = '<|python_end|>';
const STARTS = ['[', PY_START];
const AFTER_LIST = [PY_END, '[', PY_START];
const SEPARATORS = [',', ']'];
const NAME_LIMIT = 256;

const enum Y {
  Text,
  Wrapped,
  Head,
  Args,
  Skip,
  Sep,
  Elem,
  ListEnd,
  After,
}

const enum HeadResult {
  Wait,
  No,
  Yes,
  /** `]` after a trailing comma: the list ends. */
  Close,
}

class PythonicToolParser extends ToolStreamParser {
  private y = Y.Text;
  private readonly starts = this.markerSet(STARTS);
  protected readonly startChars = '[<';

  protected inPlainText(): boolean {
    return this.y === Y.Text;
  }

  /** Where text scanning resumes if the candidate is rejected (just after its `[` or marker). */
  private resume = 0;
  private first = true;
  private headName = '';
  private sc: PyScanner | null = null;
  private tool = -1;

  protected run(): void {
    while (!this.passthrough) {
      switch (this.y) {
        case Y.Text: {
          const m = this.scanText(this.starts);
          if (m === null) return;
          this.begin(this.pos, m);
          break;
        }
        case Y.Wrapped:
          if (!this.skipWs()) {
            if (!this.final) return;
            this.reject();
            break;
          }
          if (this.buf.charCodeAt(this.pos) !== 0x5b) {
            this.reject();
            break;
          }
          this.pos++;
          this.resume = this.pos;
          this.first = true;
          this.y = Y.Head;
          break;
        case Y.Head:
        case Y.Elem: {
          const h = this.readHead();
          if (h === HeadResult.Wait) return;
          if (h === HeadResult.Close) {
            this.y = Y.ListEnd;
            break;
          }
          if (h === HeadResult.No) {
            if (this.y === Y.Head) this.reject();
            else this.y = Y.Text;
            break;
          }
          if (this.declared(this.headName)) {
            this.tool = this.out.startCall(this.headName);
            this.first = false;
            this.sc = new PyScanner(this.pos, true);
            this.y = Y.Args;
          } else if (this.y === Y.Head) this.reject();
          else {
            this.sc = new PyScanner(this.pos, true);
            this.y = Y.Skip;
          }
          break;
        }
        case Y.Args:
        case Y.Skip: {
          const sc = this.sc as PyScanner;
          const ev = sc.scan(this.buf);
          const args = this.y === Y.Args;
          if (args) this.out.args(this.tool, sc.out);
          sc.out = '';
          if (ev === Ev.Done) {
            this.pos = sc.pos;
            if (!args) this.releaseCand(sc.pos);
            this.y = Y.Sep;
          } else if (ev === Ev.Error) {
            // A broken element: a call ends with what it had; a skipped one is text up to the break.
            if (args) this.out.args(this.tool, sc.close());
            else this.releaseCand(sc.pos);
            this.pos = sc.pos;
            this.y = Y.Text;
          } else if (this.final) {
            if (args) this.out.args(this.tool, sc.close());
            else this.releaseCand(this.buf.length);
            this.pos = this.buf.length;
            this.y = Y.Text;
          } else {
            if (args) {
              this.pos = sc.pos;
              sc.rebase(this.dropConsumed());
            } else sc.rebase(this.holdCand(sc.pos));
            return;
          }
          break;
        }
        case Y.Sep: {
          const f = this.follow(SEPARATORS);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) {
            this.y = Y.Text;
            break;
          }
          this.pos++;
          this.y = f === 0 ? Y.Elem : Y.ListEnd;
          break;
        }
        case Y.ListEnd:
        case Y.After: {
          const f = this.follow(this.y === Y.ListEnd ? AFTER_LIST : STARTS);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) {
            this.y = Y.Text;
            break;
          }
          const m = this.y === Y.ListEnd ? AFTER_LIST[f] : STARTS[f];
          if (m === PY_END) {
            this.pos += PY_END.length;
            this.y = Y.After;
          } else this.begin(this.followWs, m);
          break;
        }
      }
    }
  }

  /** A candidate list begins at `pos` (its text, whitespace before it included, from `cand`). */
  private begin(cand: number, marker: string): void {
    this.setCand(cand);
    this.pos += marker.length;
    this.resume = this.pos;
    this.first = true;
    this.y = marker === PY_START ? Y.Wrapped : Y.Head;
  }

  /** Reads `NAME(` after optional whitespace; on Yes `pos` is just after the `(`. */
  private readHead(): HeadResult {
    const buf = this.buf;
    let i = this.pos;
    while (i < buf.length && isJsonWs(buf.charCodeAt(i))) i++;
    if (i === buf.length) return this.final ? HeadResult.No : HeadResult.Wait;
    if (!this.first && buf.charCodeAt(i) === 0x5d) {
      // A trailing comma before `]`.
      this.pos = i + 1;
      return HeadResult.Close;
    }
    if (!isIdentStart(buf.charCodeAt(i))) {
      this.pos = i;
      return HeadResult.No;
    }
    const nameStart = i;
    while (i < buf.length && isIdentChar(buf.charCodeAt(i)) && i - nameStart < NAME_LIMIT) i++;
    if (i - nameStart >= NAME_LIMIT) return HeadResult.No;
    const nameEnd = i;
    while (i < buf.length && isJsonWs(buf.charCodeAt(i))) i++;
    if (i === buf.length) return this.final ? HeadResult.No : HeadResult.Wait;
    if (buf.charCodeAt(i) !== 0x28) {
      this.pos = nameStart;
      return HeadResult.No;
    }
    this.headName = buf.slice(nameStart, nameEnd);
    if (!this.first) this.setCand(nameStart);
    this.pos = i + 1;
    return HeadResult.Yes;
  }

  /** The candidate is not a call list: its opening stays text; scanning resumes after it. */
  private reject(): void {
    this.releaseCand(this.resume);
    this.y = Y.Text;
  }
}

export const pythonicToolParser = toolParserSpec('pythonic', (tools: readonly ToolSchema[]) => new PythonicToolParser(tools));
