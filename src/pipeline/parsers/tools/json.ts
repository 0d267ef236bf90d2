/**
 * `json`: calls written as plain JSON anywhere in the text: an object `{"name": …, "arguments" |
 * "parameters": …}` or an array of them (request-pipeline §11.3; SMG
 * crates/tool_parser/src/parsers/json.rs). Used for Llama 3.1-style JSON calling, GPT/Claude/Gemini
 * names, and the JSON-schema `required` path (§10.4). An object only becomes a call when it has a
 * string `name` that is a declared tool, so a JSON answer without one (or naming something else)
 * stays text, whole.
 */
import { JsonListParser } from './json-list.js';
import { FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, Next, toolParserSpec } from './stream-base.js';
import type { ToolSchema } from './types.js';

const STARTS = ['{', '['];

const enum J {
  Text,
  List,
  After,
}

class JsonToolParser extends JsonListParser {
  private j = J.Text;
  private readonly starts = this.markerSet(STARTS);
  protected readonly startChars = '{[';

  protected inPlainText(): boolean {
    return this.j === J.Text;
  }


  protected run(): void {
    while (!this.passthrough) {
      switch (this.j) {
        case J.Text:
          if (this.scanText(this.starts) === null) return;
          this.begin(this.pos);
          break;
        case J.List: {
          const next = this.stepList();
          if (next === Next.Wait) return;
          this.j = next === Next.Done ? J.After : J.Text;
          break;
        }
        case J.After: {
          const f = this.follow(STARTS);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) this.j = J.Text;
          else this.begin(this.followWs);
          break;
        }
      }
    }
  }

  private begin(cand: number): void {
    this.setCand(cand);
    if (this.buf.charCodeAt(this.pos) === 0x7b) this.startObject();
    else this.startArray();
    this.j = J.List;
  }
}

export const jsonToolParser = toolParserSpec('json', (tools: readonly ToolSchema[]) => new JsonToolParser(tools));
