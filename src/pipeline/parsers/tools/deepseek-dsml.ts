/**
 * DeepSeek's DSML call blocks (V3.2 and V4; request-pipeline §11.3). DeepSeek's encoding
 * (deepseek-ai/DeepSeek-V3.2 `encoding/encoding_dsv32.py`; SMG crates/tool_parser/src/parsers/
 * deepseek_dsml.rs; vllm/tool_parsers/deepseekv32_tool_parser.py) writes, after the content:
 *
 *   <｜DSML｜BLOCK>\n<｜DSML｜invoke name="NAME">\n<｜DSML｜parameter name="K" string="true">V</｜DSML｜parameter>\n…</｜DSML｜invoke>\n</｜DSML｜BLOCK>
 *
 * with BLOCK `function_calls` (V3.2) or `tool_calls` (V4), `｜` being U+FF5C. `string="true"`
 * values are the text as written (streamed as it arrives); `string="false"` values are JSON (kept
 * as a string if they do not parse); a missing `string` attribute reads as true. An invoke body
 * may instead be one JSON object (SMG's fallback). An invoke naming an undeclared tool stays
 * text; later invokes are still read.
 */
import { ArgsObjectWriter } from './args-object.js';
import { Step } from './json-call.js';
import { JsonArgsReader } from './json-args-reader.js';
import { FIND_WAIT, FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, ToolStreamParser } from './stream-base.js';
import type { MarkerFinder } from './marker-finder.js';
import { TagValue, ValueMode } from './tag-value.js';
import type { ToolSchema } from './types.js';

const DSML = '｜DSML｜';
const INVOKE = `<${DSML}invoke`;
const INVOKE_END = `</${DSML}invoke>`;
const PARAM = `<${DSML}parameter`;
const PARAM_END = `</${DSML}parameter>`;
const VALUE_ENDS = [PARAM_END];
const INVOKE_ONLY = [INVOKE];
const BODY = [PARAM, INVOKE_END, '{'];
const JSON_END = [INVOKE_END];

type Block = 'function_calls' | 'tool_calls';

function block(name: Block) {
  const open = `<${DSML}${name}>`;
  const close = `</${DSML}${name}>`;
  return { open, close, starts: [open, INVOKE], afterInvoke: [INVOKE, close] };
}

/** The two block spellings' markers, made once. */
const BLOCKS = { function_calls: block('function_calls'), tool_calls: block('tool_calls') };
const TAG_LIMIT = 512;
const INVOKE_ATTRS = /^\s+name="([^"]*)"\s*$/;
const PARAM_ATTRS = /^\s+name="([^"]*)"(?:\s+string="(true|false)")?\s*$/;

const enum G {
  Text,
  BlockOpen,
  Invoke,
  Body,
  Value,
  Json,
  JsonEnd,
  InvokeAfter,
  BlockAfter,
}

class DsmlParser extends ToolStreamParser {
  private g = G.Text;
  protected readonly startChars = '<';

  protected inPlainText(): boolean {
    return this.g === G.Text;
  }

  private tool = -1;
  private opened = false;
  private args = new ArgsObjectWriter(false);
  private value: TagValue | null = null;
  private readonly valueEnds = this.markerSet(VALUE_ENDS);
  private json: JsonArgsReader | null = null;
  private readonly blockOpen: string;
  private readonly blockClose: string;
  private readonly starts: readonly string[];
  private readonly afterInvoke: readonly string[];
  private readonly startSet: MarkerFinder;

  constructor(tools: readonly ToolSchema[], block: Block) {
    super(tools);
    const b = BLOCKS[block];
    this.blockOpen = b.open;
    this.blockClose = b.close;
    this.starts = b.starts;
    this.afterInvoke = b.afterInvoke;
    this.startSet = this.markerSet(b.starts);
  }

  protected run(): void {
    while (!this.passthrough) {
      switch (this.g) {
        case G.Text: {
          const m = this.scanText(this.startSet);
          if (m === null) return;
          this.setCand(this.pos);
          if (m === INVOKE) this.g = G.Invoke;
          else {
            this.pos += m.length;
            this.g = G.BlockOpen;
          }
          break;
        }
        case G.BlockOpen: {
          const f = this.follow(INVOKE_ONLY);
          if (f === FOLLOW_WAIT) return;
          if (f === 0) this.g = G.Invoke;
          else this.reject(f === FOLLOW_END ? this.buf.length : this.pos);
          break;
        }
        case G.Invoke: {
          const tagAt = this.pos;
          this.pos = tagAt + INVOKE.length;
          const i = this.findWithin('>', TAG_LIMIT);
          this.pos = tagAt;
          if (i === FIND_WAIT) return;
          const attrs = i < 0 ? null : INVOKE_ATTRS.exec(this.buf.slice(tagAt + INVOKE.length, i));
          const name = attrs ? attrs[1].trim() : '';
          if (name.length === 0 || !this.declared(name)) {
            this.reject(tagAt + INVOKE.length);
            break;
          }
          this.tool = this.out.startCall(name);
          this.args = new ArgsObjectWriter(false);
          this.opened = false;
          this.pos = i + 1;
          this.g = G.Body;
          break;
        }
        case G.Body: {
          const f = this.follow(BODY);
          if (f === FOLLOW_WAIT) return;
          if (f === 0) {
            if (!this.beginParam()) return;
          } else if (f === 1) {
            this.endArgs();
            this.pos += INVOKE_END.length;
            this.g = G.InvokeAfter;
          } else if (f === 2 && !this.opened) {
            this.json = new JsonArgsReader(this.out, this.tool, this.pos);
            this.opened = true;
            this.g = G.Json;
          } else {
            this.endArgs();
            if (f === FOLLOW_END) {
              this.pos = this.buf.length;
              return;
            }
            this.g = G.Text;
          }
          break;
        }
        case G.Value: {
          const v = this.value as TagValue;
          this.pos = v.read(this.buf, this.pos, this.final, this.valueEnds, this.dropped);
          if (v.end === '' && !this.final) {
            this.dropConsumed();
            return;
          }
          this.pos += v.end.length;
          // A value cut off by the end of the stream is kept, as far as it got.
          if (v.mode === ValueMode.Stream) this.out.args(this.tool, v.end === '' ? this.args.cutString() : this.args.endString());
          else this.out.args(this.tool, jsonOrString(v.raw));
          this.g = G.Body;
          break;
        }
        case G.Json: {
          const r = this.json as JsonArgsReader;
          const s = r.step(this.buf, this.final);
          this.pos = r.pos;
          if (s === Step.Done) this.g = G.JsonEnd;
          else if (s === Step.Broken) this.g = G.Text;
          else if (this.final) {
            r.cutOff();
            this.pos = this.buf.length;
            return;
          } else {
            r.rebase(this.dropConsumed());
            return;
          }
          break;
        }
        case G.JsonEnd:
        case G.InvokeAfter:
        case G.BlockAfter: {
          const markers = this.g === G.JsonEnd ? JSON_END : this.g === G.InvokeAfter ? this.afterInvoke : this.starts;
          const f = this.follow(markers);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) {
            this.g = G.Text;
            break;
          }
          const m = markers[f];
          if (m === INVOKE_END) {
            this.pos += m.length;
            this.g = G.InvokeAfter;
          } else if (m === this.blockClose) {
            this.pos += m.length;
            this.g = G.BlockAfter;
          } else {
            this.setCand(this.followWs);
            if (m === INVOKE) this.g = G.Invoke;
            else {
              this.pos += m.length;
              this.g = G.BlockOpen;
            }
          }
          break;
        }
      }
    }
  }

  /** A parameter tag at `pos`: writes its key and starts its value; false when more text is needed. */
  private beginParam(): boolean {
    const tagAt = this.pos;
    this.pos = tagAt + PARAM.length;
    const i = this.findWithin('>', TAG_LIMIT);
    if (i === FIND_WAIT) {
      this.pos = tagAt;
      return false;
    }
    const attrs = i < 0 ? null : PARAM_ATTRS.exec(this.buf.slice(this.pos, i));
    if (attrs === null) {
      // A malformed tag ends the call; it stays text.
      this.pos = tagAt;
      this.endArgs();
      this.g = G.Text;
      return true;
    }
    const asString = attrs[2] !== 'false';
    this.out.args(this.tool, (this.opened ? '' : this.args.open()) + this.args.key(attrs[1]) + (asString ? this.args.beginString(null) : ''));
    this.opened = true;
    this.value = new TagValue(this.out, this.tool, this.args, asString ? ValueMode.Stream : ValueMode.Buffer, false);
    this.pos = i + 1;
    this.g = G.Value;
    return true;
  }

  private endArgs(): void {
    this.out.args(this.tool, (this.opened ? '' : this.args.open()) + this.args.close());
    this.opened = true;
  }

  private reject(resume: number): void {
    this.releaseCand(resume);
    this.g = G.Text;
  }
}

function jsonOrString(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw.trim()));
  } catch {
    return JSON.stringify(raw);
  }
}

export function dsmlParser(tools: readonly ToolSchema[], block: Block): ToolStreamParser {
  return new DsmlParser(tools, block);
}
