/**
 * Reading a call object or an array of call objects, for the formats that write calls as bare
 * JSON (json, mistral's `[TOOL_CALLS] [...]`, llama). The array's first element decides: if it is a
 * declared call the array is a call list, and a later element that is not a call is released as
 * text in its place; if it is not (or is not an object), the whole array stays text, so a JSON
 * answer that happens to be an array is not picked apart. Text that is not JSON at all (`[see
 * above]`) is released up to the first character that cannot be JSON, and scanning resumes there.
 */
import { JsonCallReader } from './json-call.js';
import { Ev, JsonScanner } from './json-scan.js';
import { PARSER_BUFFER_LIMIT } from '../types.js';
import { FOLLOW_END, FOLLOW_TEXT, FOLLOW_WAIT, Next, ToolStreamParser } from './stream-base.js';

const enum L {
  Object,
  ArrOpen,
  ArrFirst,
  Skip,
  ArrSep,
  ArrElem,
  ArrNext,
}

const SEPARATORS = [',', ']'];

export abstract class JsonListParser extends ToolStreamParser {
  private l = L.Object;
  private arrayAt = 0;
  private reader: JsonCallReader | null = null;
  private skipper: JsonScanner | null = null;

  protected argKeys: readonly string[] = ['arguments', 'parameters'];

  /** A call object begins at `pos`; the candidate (`cand`, marker included) is already set. */
  protected startObject(): void {
    this.reader = new JsonCallReader(this.ctx, this.pos, this.argKeys);
    this.l = L.Object;
  }

  /** An array begins at `pos` (on the `[`); the candidate is already set. */
  protected startArray(): void {
    this.arrayAt = this.pos;
    this.pos++;
    this.l = L.ArrOpen;
  }

  /** Advances the object or array: Done when it ended (pos after it), Text when back to text. */
  protected stepList(): Next {
    for (;;) {
      switch (this.l) {
        case L.Object:
          return this.stepCall(this.reader as JsonCallReader);
        case L.ArrOpen:
          if (!this.skipWs()) {
            if (!this.final) return Next.Wait;
            this.releaseCand(this.buf.length);
            return Next.Text;
          }
          if (this.buf.charCodeAt(this.pos) !== 0x7b) {
            this.skipper = new JsonScanner(this.arrayAt);
            this.l = L.Skip;
            break;
          }
          this.reader = new JsonCallReader(this.ctx, this.pos, this.argKeys);
          this.l = L.ArrFirst;
          break;
        case L.ArrFirst: {
          const r = this.reader as JsonCallReader;
          const next = this.stepCall(r, false);
          if (next === Next.Wait) return next;
          if (next === Next.Done) this.l = L.ArrSep;
          else if (r.committed || this.final) return Next.Text;
          else if (!r.complete) {
            // Not JSON: text up to the bad character; scanning resumes there.
            this.releaseCand(r.pos);
            return Next.Text;
          } else {
            // Not a call: the rest of the array is skipped as text.
            this.skipper = JsonScanner.afterArrayElement(r.pos);
            this.l = L.Skip;
          }
          break;
        }
        case L.Skip: {
          const sc = this.skipper as JsonScanner;
          const end = this.candidateEnd();
          const ev = sc.scan(this.buf, end);
          if (ev === Ev.Done || ev === Ev.Error) {
            this.releaseCand(sc.pos);
            return Next.Text;
          }
          if (this.candLength(end) >= PARSER_BUFFER_LIMIT) {
            this.giveUp();
            return Next.Wait;
          }
          if (this.final) {
            this.releaseCand(this.buf.length);
            return Next.Text;
          }
          sc.rebase(this.holdCand(sc.pos));
          return Next.Wait;
        }
        case L.ArrSep: {
          const f = this.follow(SEPARATORS);
          if (f === FOLLOW_WAIT) return Next.Wait;
          if (f === FOLLOW_END) {
            this.pos = this.buf.length;
            return Next.Done;
          }
          if (f === FOLLOW_TEXT) return Next.Text;
          this.pos++;
          if (f === 1) return Next.Done;
          this.l = L.ArrElem;
          break;
        }
        case L.ArrElem:
          if (!this.skipWs()) {
            if (!this.final) return Next.Wait;
            return Next.Done;
          }
          if (this.buf.charCodeAt(this.pos) !== 0x7b) return Next.Text;
          this.setCand(this.pos);
          this.reader = new JsonCallReader(this.ctx, this.pos, this.argKeys);
          this.l = L.ArrNext;
          break;
        case L.ArrNext: {
          const r = this.reader as JsonCallReader;
          const next = this.stepCall(r);
          if (next === Next.Wait) return next;
          if (next === Next.Done || (!r.committed && !this.final)) this.l = L.ArrSep;
          else return Next.Text;
          break;
        }
      }
    }
  }
}
