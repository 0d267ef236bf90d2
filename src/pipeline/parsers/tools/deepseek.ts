/**
 * `deepseek`: DeepSeek-V3 (and R1) calls. The model's own template (tokenizer_config.json of
 * deepseek-ai/DeepSeek-V3, cached by test/support/tokenizer-fixtures.ts as `deepseek_v3`) writes
 *
 *   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜>
 *
 * with further calls joined by `\n`, then `<｜tool▁calls▁end｜>`. The type must be `function`;
 * the code fence (with or without `json`) may be left out; whitespace around the fence is free.
 * SMG crates/tool_parser/src/parsers/deepseek.rs reads the same shape.
 */
import { CALL_END, DeepSeekBlockParser, HeaderResult, SEP } from './deepseek-base.js';
import { Match } from '../markers.js';
import { FIND_NO, FIND_WAIT, toolParserSpec } from './stream-base.js';
import type { ToolSchema } from './types.js';

const TYPE_LIMIT = 32;
const NAME_LIMIT = 256;
const FENCE = '```';

const enum H {
  Type,
  Name,
  Fence,
  Lang,
}

class DeepSeekV3Parser extends DeepSeekBlockParser {
  private h = H.Type;
  private nameAt = 0;
  protected override readonly tailMarkers = [FENCE, CALL_END];

  protected readHeader(headerStart: number): HeaderResult {
    for (;;) {
      switch (this.h) {
        case H.Type: {
          this.pos = headerStart;
          const i = this.findWithin(SEP, TYPE_LIMIT);
          if (i === FIND_WAIT) return HeaderResult.Wait;
          if (i === FIND_NO || this.buf.slice(this.pos, i).trim() !== 'function') return HeaderResult.Reject;
          this.pos = i + SEP.length;
          this.nameAt = this.pos;
          this.h = H.Name;
          break;
        }
        case H.Name: {
          this.pos = this.nameAt;
          const i = this.findWithin('\n', NAME_LIMIT);
          if (i === FIND_WAIT) return HeaderResult.Wait;
          const name = i === FIND_NO ? '' : this.buf.slice(this.pos, i).trim();
          if (name.length === 0 || !this.declared(name)) return this.rejectHere(headerStart);
          this.name = name;
          this.pos = i + 1;
          this.h = H.Fence;
          break;
        }
        case H.Fence: {
          const m = this.expectAfterWs(FENCE);
          if (m === Match.Partial) return HeaderResult.Wait;
          if (m === Match.No) {
            // No fence: the arguments may follow directly.
            if (this.skipWs() && this.buf.charCodeAt(this.pos) === 0x7b) return this.done();
            return this.rejectHere(headerStart);
          }
          this.pos += FENCE.length;
          this.h = H.Lang;
          break;
        }
        case H.Lang: {
          const m = this.match('json');
          if (m === Match.Partial) return HeaderResult.Wait;
          if (m === Match.Yes) this.pos += 4;
          return this.done();
        }
      }
    }
  }

  private done(): HeaderResult {
    this.h = H.Type;
    return HeaderResult.Call;
  }

  /** An unusable header: only the markers before it are released, so what follows is scanned as text. */
  private rejectHere(headerStart: number): HeaderResult {
    this.h = H.Type;
    this.pos = headerStart;
    return HeaderResult.Reject;
  }
}

export const deepseekToolParser = toolParserSpec('deepseek', (tools: readonly ToolSchema[]) => new DeepSeekV3Parser(tools));
