/**
 * `llama`: Llama 3.x JSON calls (request-pipeline §11.3; SMG crates/tool_parser/src/parsers/
 * llama.rs). The model answers with `{"name": …, "parameters": …}` — either as its whole reply
 * (leading whitespace allowed) or after `<|python_tag|>` anywhere — and may chain several with `;`
 * (the Llama 3.2 tool prompt: https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_2/).
 * `arguments` is accepted for `parameters`. `<|python_tag|>` followed by anything but a JSON call
 * (Llama 3.1's built-in `brave_search.call(…)` or code) stays text, tag included. A `{` in the
 * middle of prose is not a call.
 */
import { type CallShape, JSON_CALL } from './json-call.js';
import { JsonListParser } from './json-list.js';
import { FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, Next, toolParserSpec } from './stream-base.js';
import type { ToolSchema } from './types.js';

const TAG = '<|python_tag|>';
const STARTS = [TAG];
const AFTER = [';', '{', TAG];

const enum A {
  Begin,
  Text,
  Tagged,
  List,
  After,
  Semi,
}

class LlamaToolParser extends JsonListParser {
  private a = A.Begin;
  private readonly starts = this.markerSet(STARTS);
  protected readonly startChars = '<';

  protected inPlainText(): boolean {
    return this.a === A.Text;
  }


  protected override shape: CallShape = { ...JSON_CALL, argKeys: ['parameters', 'arguments'] };

  protected run(): void {
    while (!this.passthrough) {
      switch (this.a) {
        case A.Begin:
          // Only the reply's first non-blank character can open a bare call.
          if (!this.skipWs()) {
            if (!this.final) {
              this.pos = 0;
              return;
            }
            this.pos = 0;
            this.a = A.Text;
            break;
          }
          if (this.buf.charCodeAt(this.pos) === 0x7b) {
            this.setCand(0);
            this.startObject();
            this.a = A.List;
          } else {
            this.pos = 0;
            this.a = A.Text;
          }
          break;
        case A.Text:
          if (this.scanText(this.starts) === null) return;
          this.setCand(this.pos);
          this.pos += TAG.length;
          this.a = A.Tagged;
          break;
        case A.Tagged:
        case A.Semi:
          if (!this.skipWs()) {
            if (!this.final) return;
            // A dangling `;` after the last call is a separator, not text.
            if (this.a === A.Tagged) this.releaseCand(this.buf.length);
            this.pos = this.buf.length;
            this.a = A.Text;
            break;
          }
          if (this.buf.charCodeAt(this.pos) === 0x7b) {
            this.startObject();
            this.a = A.List;
          } else {
            this.releaseCand(this.pos);
            this.a = A.Text;
          }
          break;
        case A.List: {
          const next = this.stepList();
          if (next === Next.Wait) return;
          this.a = next === Next.Done ? A.After : A.Text;
          break;
        }
        case A.After: {
          const f = this.follow(AFTER);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) {
            this.a = A.Text;
            break;
          }
          this.setCand(this.followWs);
          if (f === 1) {
            this.startObject();
            this.a = A.List;
          } else {
            this.pos += f === 0 ? 1 : TAG.length;
            this.a = f === 0 ? A.Semi : A.Tagged;
          }
          break;
        }
      }
    }
  }
}

export const llamaToolParser = toolParserSpec('llama', (tools: readonly ToolSchema[]) => new LlamaToolParser(tools));
