/**
 * The block grammar DeepSeek V3 and V3.1 share (request-pipeline §11.3): calls between
 * `<｜tool▁calls▁begin｜>` and `<｜tool▁calls▁end｜>`, each `<｜tool▁call▁begin｜>HEADER ARGS
 * <｜tool▁call▁end｜>`, where the two versions differ only in the header (see deepseek.ts and
 * deepseek31.ts). The markers use U+2581 `▁` and the fullwidth bar U+FF5C `｜`. A lone
 * `<｜tool▁call▁begin｜>` without the outer marker is read too (SMG's streaming parser does the
 * same). Arguments that are not a JSON object are sent as `{"value": …}` (SMG's DeepSeek parsers).
 * A call naming an undeclared tool stays text; the calls after it are still read.
 */
import { Step } from './json-call.js';
import { JsonArgsReader, NonObject } from './json-args-reader.js';
import { Match } from '../markers.js';
import { FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, ToolStreamParser } from './stream-base.js';

export const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
export const CALLS_END = '<｜tool▁calls▁end｜>';
export const CALL_BEGIN = '<｜tool▁call▁begin｜>';
export const CALL_END = '<｜tool▁call▁end｜>';
export const SEP = '<｜tool▁sep｜>';

const STARTS = [CALLS_BEGIN, CALL_BEGIN];
const AFTER = [CALL_BEGIN, CALLS_END, CALLS_BEGIN];
const CALL_ONLY = [CALL_BEGIN];

export const enum HeaderResult {
  /** More text is needed. */
  Wait,
  /** Not a call: release the candidate up to `pos` as text. */
  Reject,
  /** The header named a declared tool (`name`); `pos` is where the arguments begin. */
  Call,
}

const enum D {
  Text,
  BlockOpen,
  Header,
  Args,
  Tail,
  After,
}

export abstract class DeepSeekBlockParser extends ToolStreamParser {
  private d = D.Text;
  private readonly starts = this.markerSet(STARTS);
  protected readonly startChars = '<';

  protected inPlainText(): boolean {
    return this.d === D.Text;
  }

  private args: JsonArgsReader | null = null;
  /** Set by `readHeader` on HeaderResult.Call. */
  protected name = '';

  /** Reads the call header after `<｜tool▁call▁begin｜>` (pos is inside it, resumable from `headerStart`). */
  protected abstract readHeader(headerStart: number): HeaderResult;

  /** What may stand between the arguments and `<｜tool▁call▁end｜>` (V3: the closing code fence). */
  protected readonly tailMarkers: readonly string[] = [CALL_END];

  private headerStart = 0;

  protected run(): void {
    while (!this.passthrough) {
      switch (this.d) {
        case D.Text: {
          const m = this.scanText(this.starts);
          if (m === null) return;
          this.setCand(this.pos);
          this.pos += m.length;
          if (m === CALLS_BEGIN) this.d = D.BlockOpen;
          else this.beginHeader();
          break;
        }
        case D.BlockOpen: {
          const f = this.follow(CALL_ONLY);
          if (f === FOLLOW_WAIT) return;
          if (f === 0) {
            this.pos += CALL_BEGIN.length;
            this.beginHeader();
          } else this.reject();
          break;
        }
        case D.Header: {
          const h = this.readHeader(this.headerStart);
          if (h === HeaderResult.Wait) return;
          if (h === HeaderResult.Reject) this.reject();
          else {
            const tool = this.out.startCall(this.name);
            this.args = new JsonArgsReader(this.out, tool, this.pos, NonObject.Wrap);
            this.d = D.Args;
          }
          break;
        }
        case D.Args: {
          const r = this.args as JsonArgsReader;
          const s = r.step(this.buf, this.final);
          this.pos = r.pos;
          if (s === Step.Done) this.d = D.Tail;
          else if (s === Step.Broken) this.d = D.Text;
          else if (this.final) {
            r.cutOff();
            this.pos = this.buf.length;
            this.d = D.After;
          } else {
            r.rebase(this.dropConsumed());
            return;
          }
          break;
        }
        case D.Tail: {
          const f = this.follow(this.tailMarkers);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) this.d = D.Text;
          else {
            const m = this.tailMarkers[f];
            this.pos += m.length;
            if (m === CALL_END) this.d = D.After;
          }
          break;
        }
        case D.After: {
          const f = this.follow(AFTER);
          if (f === FOLLOW_WAIT) return;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return;
          }
          if (f === FOLLOW_TEXT) {
            this.d = D.Text;
            break;
          }
          const m = AFTER[f];
          if (m === CALLS_END) {
            this.pos += m.length;
            break;
          }
          this.setCand(this.followWs);
          this.pos += m.length;
          if (m === CALLS_BEGIN) this.d = D.BlockOpen;
          else this.beginHeader();
          break;
        }
      }
    }
  }

  private beginHeader(): void {
    this.headerStart = this.pos;
    this.d = D.Header;
  }

  /** The candidate is not a call: its markers stay text and scanning resumes at `pos`. */
  private reject(): void {
    this.releaseCand(this.pos);
    this.d = D.Text;
  }

  /** For headers: `lit` at `pos` after optional whitespace (Partial while the buffer ends inside it). */
  protected expectAfterWs(lit: string): Match {
    const at = this.pos;
    if (!this.skipWs()) {
      this.pos = at;
      return this.final ? Match.No : Match.Partial;
    }
    const m = this.match(lit);
    if (m !== Match.Yes) this.pos = at;
    return m;
  }
}
