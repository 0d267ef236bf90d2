/**
 * `qwen`: Hermes-style calls, one JSON object per `<tool_call>` block (Qwen2.5, Qwen3; request-
 * pipeline §11.3). The template writes `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`
 * (https://huggingface.co/Qwen/Qwen3-8B, tokenizer_config.json chat_template; SMG
 * crates/tool_parser/src/parsers/qwen.rs). Any whitespace is accepted around the object, the
 * closing tag may be missing (the call ends with its object), and `parameters` is accepted for
 * `arguments`. A block whose content is not a declared call stays text, tags included.
 */
import { JsonCallReader } from './json-call.js';
import { FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, Next, ToolStreamParser, toolParserSpec } from './stream-base.js';
import type { ToolSchema } from './types.js';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const START = [OPEN];
const END = [CLOSE];

const enum Q {
  Text,
  Open,
  Call,
  Close,
  After,
}

class QwenParser extends ToolStreamParser {
  private q = Q.Text;
  private readonly starts = this.markerSet(START);
  protected readonly startChars = '<';

  protected inPlainText(): boolean {
    return this.q === Q.Text;
  }

  private reader: JsonCallReader | null = null;

  protected run(): void {
    while (!this.passthrough) {
      switch (this.q) {
        case Q.Text:
          if (this.scanText(this.starts) === null) return;
          this.setCand(this.pos);
          this.pos += OPEN.length;
          this.q = Q.Open;
          break;
        case Q.Open:
          if (!this.skipWs()) {
            if (!this.final) return;
            this.releaseCand(this.buf.length);
            this.q = Q.Text;
            break;
          }
          if (this.buf.charCodeAt(this.pos) !== 0x7b) {
            this.releaseCand(this.pos);
            this.q = Q.Text;
            break;
          }
          this.reader = new JsonCallReader(this, this.pos);
          this.q = Q.Call;
          break;
        case Q.Call: {
          const next = this.stepCall(this.reader as JsonCallReader);
          if (next === Next.Wait) return;
          this.q = next === Next.Done ? Q.Close : Q.Text;
          break;
        }
        case Q.Close:
        case Q.After: {
          const f = this.follow(this.q === Q.Close ? END : START);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            this.q = Q.Text;
            return;
          }
          if (f === FOLLOW_TEXT) this.q = Q.Text;
          else if (this.q === Q.Close) {
            this.pos += CLOSE.length;
            this.q = Q.After;
          } else {
            this.setCand(this.followWs);
            this.pos += OPEN.length;
            this.q = Q.Open;
          }
          break;
        }
      }
    }
  }
}

export const qwenToolParser = toolParserSpec('qwen', (tools: readonly ToolSchema[]) => new QwenParser(tools));
