/**
 * `qwen_xml` (aliases `qwen_coder`, `nemotron`): the XML-parameter calls of Qwen3-Coder, Qwen3.5+
 * and Nemotron 3 (request-pipeline §11.3). The Qwen3-Coder template
 * (https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct, chat_template) writes
 *
 *   <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…</function>\n</tool_call>
 *
 * One newline after `<parameter=KEY>` and one before `</parameter>` are formatting and dropped
 * (vllm/tool_parsers/qwen3coder_tool_parser.py; SMG trims all surrounding whitespace, which would
 * eat a code value's first indentation). Values are typed by the tool's schema (param-typing.ts);
 * string values stream as they are written. A bare `<function=NAME>` without `<tool_call>` is read
 * too (vLLM falls back to it). Names and keys are trimmed; the first `</parameter>` ends a value.
 */
import { ArgsObjectWriter } from './args-object.js';
import { paramType, typedValue, type ParamType } from './param-typing.js';
import { Match } from '../markers.js';
import { FIND_WAIT, FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, ToolStreamParser, toolParserSpec } from './stream-base.js';
import { TagValue, ValueMode } from './tag-value.js';
import type { ToolSchema } from './types.js';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const FUNC = '<function=';
const FUNC_END = '</function>';
const PARAM = '<parameter=';
const PARAM_END = '</parameter>';
/** What ends a value: its end tag, with the newline before it (formatting) when there is one. */
const VALUE_ENDS = ['\n' + PARAM_END, PARAM_END];
const STARTS = [OPEN, FUNC];
const BODY = [PARAM, FUNC_END];
const ENDS = [CLOSE];
const NAME_LIMIT = 256;

const enum X {
  Text,
  Open,
  Func,
  Body,
  Value,
  Close,
  After,
}

class QwenXmlParser extends ToolStreamParser {
  private x = X.Text;
  private readonly starts = this.markerSet(STARTS);
  private readonly valueEnds = this.markerSet(VALUE_ENDS);
  protected readonly startChars = '<';

  protected inPlainText(): boolean {
    return this.x === X.Text;
  }

  private tool = -1;
  private schema: ToolSchema | undefined;
  private args = new ArgsObjectWriter(false);
  private value: TagValue | null = null;
  private valueType: ParamType | null = null;

  protected run(): void {
    while (!this.passthrough) {
      switch (this.x) {
        case X.Text: {
          const m = this.scanText(this.starts);
          if (m === null) return;
          this.setCand(this.pos);
          if (m === OPEN) {
            this.pos += OPEN.length;
            this.x = X.Open;
          } else this.x = X.Func;
          break;
        }
        case X.Open: {
          const at = this.pos;
          if (!this.skipWs()) {
            if (!this.final) {
              this.pos = at;
              return;
            }
            this.releaseCand(this.buf.length);
            this.x = X.Text;
            break;
          }
          const m = this.match(FUNC);
          if (m === Match.Partial) {
            this.pos = at;
            return;
          }
          if (m === Match.No) this.reject(this.pos);
          else this.x = X.Func;
          break;
        }
        case X.Func: {
          const nameAt = this.pos + FUNC.length;
          this.pos = nameAt;
          const i = this.findWithin('>', NAME_LIMIT);
          this.pos = nameAt - FUNC.length;
          if (i === FIND_WAIT) return;
          const name = i < 0 ? '' : this.buf.slice(nameAt, i).trim();
          if (name.length === 0 || !this.declared(name)) {
            this.reject(nameAt);
            break;
          }
          this.tool = this.out.startCall(name);
          this.schema = this.schemaOf(name);
          this.args = new ArgsObjectWriter(false);
          this.out.args(this.tool, this.args.open());
          this.pos = i + 1;
          this.x = X.Body;
          break;
        }
        case X.Body: {
          const f = this.follow(BODY);
          if (f === FOLLOW_WAIT) return;
          if (f === 1) {
            this.endArgs();
            this.pos += FUNC_END.length;
            this.x = X.Close;
          } else if (f === 0) {
            if (!this.beginParam()) return;
          } else {
            // Stream end, or text that is not a parameter: the call ends here.
            this.endArgs();
            if (f === FOLLOW_END) {
              this.pos = this.buf.length;
              return;
            }
            this.x = X.Text;
          }
          break;
        }
        case X.Value: {
          const v = this.value as TagValue;
          this.pos = v.read(this.buf, this.pos, this.final, this.valueEnds, this.dropped);
          if (v.end === '' && !this.final) {
            this.dropConsumed();
            return;
          }
          this.pos += v.end.length;
          // A value cut off by the end of the stream is kept, as far as it got.
          if (v.mode === ValueMode.Stream) this.out.args(this.tool, v.end === '' ? this.args.cutString() : this.args.endString());
          else this.out.args(this.tool, typedValue(v.raw, this.valueType as ParamType));
          this.x = X.Body;
          break;
        }
        case X.Close:
        case X.After: {
          const f = this.follow(this.x === X.Close ? ENDS : STARTS);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) {
            this.x = X.Text;
            break;
          }
          if (this.x === X.Close) {
            this.pos += CLOSE.length;
            this.x = X.After;
            break;
          }
          this.setCand(this.followWs);
          if (STARTS[f] === OPEN) {
            this.pos += OPEN.length;
            this.x = X.Open;
          } else this.x = X.Func;
          break;
        }
      }
    }
  }

  /** `<parameter=KEY>` at `pos`: writes the key and starts its value; false when more text is needed. */
  private beginParam(): boolean {
    const tagAt = this.pos;
    this.pos = tagAt + PARAM.length;
    const i = this.findWithin('>', NAME_LIMIT);
    if (i === FIND_WAIT) {
      this.pos = tagAt;
      return false;
    }
    const key = i < 0 ? '' : this.buf.slice(this.pos, i).trim();
    if (key.length === 0) {
      // A malformed tag ends the call; it stays text.
      this.pos = tagAt;
      this.endArgs();
      this.x = X.Text;
      return true;
    }
    const t = paramType(this.schema, key);
    const asString = t.type === 'string' && !t.nullable;
    this.out.args(this.tool, this.args.key(key) + (asString ? this.args.beginString(null) : ''));
    this.value = new TagValue(this.out, this.tool, this.args, asString ? ValueMode.Stream : ValueMode.Buffer, true);
    this.valueType = t;
    this.pos = i + 1;
    this.x = X.Value;
    return true;
  }

  private endArgs(): void {
    this.out.args(this.tool, this.args.close());
  }

  /** Not a call: the markers up to `resume` stay text; scanning resumes there. */
  private reject(resume: number): void {
    this.releaseCand(resume);
    this.x = X.Text;
  }
}

const create = (tools: readonly ToolSchema[]) => new QwenXmlParser(tools);

export const qwenXmlToolParser = toolParserSpec('qwen_xml', create);
export const qwenCoderToolParser = toolParserSpec('qwen_coder', create);
export const nemotronToolParser = toolParserSpec('nemotron', create);
