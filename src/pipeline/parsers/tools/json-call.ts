/**
 * Readers for the two JSON shapes a call takes in the JSON-family formats:
 *
 * - `JsonCallReader`: one `{"name": …, "arguments" | "parameters": …}` object (json, qwen, llama,
 *   mistral's array form). Keys may come in any order and other keys are ignored; the call commits
 *   when the `name` string ends and names a declared tool, and its arguments stream from then on
 *   (arguments written before the name are sent at the commit). The first `name` and the first
 *   arguments key win. Missing arguments are `{}`. Arguments written as a JSON string holding JSON
 *   (`"arguments": "{\"a\": 1}"`, as some fine-tunes copy from the OpenAI wire format) are unwrapped.
 * - `JsonArgsReader`: a bare arguments value after a name the format already gave (mistral's
 *   `NAME[ARGS]{…}`, the DeepSeek formats), optionally wrapping a non-object as `{"value": …}`.
 *
 * Both stream compact JSON through the sink and end a cut-off or malformed committed call with its
 * arguments closed (see JsonScanner.close).
 */
import { isJsonWs } from './char-class.js';
import { Ev, JsonScanner } from './json-scan.js';
import type { ItemSink } from './sink.js';

export const enum Step {
  /** Needs more text. */
  More,
  /** The call (or value) ended; the reader's `pos` is just after it. */
  Done,
  /** Not a call: nothing was emitted; `pos` is where text scanning may resume (after the object, or at the bad character). */
  Reject,
  /** A committed call broke off at malformed text at `pos`; the call was ended. */
  Broken,
}

const NAME_LIMIT = 512;

export interface CallContext {
  readonly out: ItemSink;
  declared(name: string): boolean;
}

export class JsonCallReader {
  /** Index of the committed call, or -1 while undecided. */
  tool = -1;
  private readonly sc: JsonScanner;
  private readonly argKeys: readonly string[];
  private key = '';
  private nameSeen = false;
  private nameActive = false;
  private nameBad = false;
  private rejected = false;
  private argsSeen = false;
  private argsActive = false;
  private argsDone = false;
  private argsAsString = false;
  private argsString = '';

  constructor(
    private readonly ctx: CallContext,
    start: number,
    argKeys: readonly string[] = ['arguments', 'parameters'],
  ) {
    this.sc = new JsonScanner(start, { events: true });
    this.argKeys = argKeys;
  }

  get pos(): number {
    return this.sc.pos;
  }

  get committed(): boolean {
    return this.tool !== -1;
  }

  /** The object was read to its end (a rejection that was not a syntax error). */
  get complete(): boolean {
    return this.sc.done;
  }

  rebase(n: number): void {
    this.sc.rebase(n);
  }

  step(buf: string, end = buf.length): Step {
    for (;;) {
      const ev = this.sc.scan(buf, end);
      switch (ev) {
        case Ev.More:
          this.drain();
          return Step.More;
        case Ev.Key:
          this.key = this.sc.key;
          break;
        case Ev.ValueStart:
          this.valueStart(buf.charCodeAt(this.sc.pos));
          break;
        case Ev.ValueEnd:
          this.valueEnd();
          break;
        case Ev.Done:
          if (!this.committed) return Step.Reject;
          this.endCall();
          return Step.Done;
        case Ev.Error:
          if (!this.committed) return Step.Reject;
          this.cutOff();
          return Step.Broken;
      }
    }
  }

  /** The stream ended inside the object: a committed call is closed; an undecided one stays text (the caller releases it). */
  finish(): void {
    if (this.committed) this.cutOff();
  }

  private valueStart(c: number): void {
    if (this.key === 'name' && !this.nameSeen) {
      this.nameSeen = true;
      this.nameActive = true;
      if (c === 0x22) {
        this.sc.collect = true;
        this.sc.collectLimit = NAME_LIMIT;
        this.sc.str = '';
      } else this.nameBad = true;
    } else if (!this.argsSeen && !this.rejected && this.argKeys.includes(this.key)) {
      this.argsSeen = true;
      this.argsActive = true;
      if (c === 0x22) {
        this.argsAsString = true;
        this.sc.collect = true;
        this.sc.collectLimit = Number.POSITIVE_INFINITY;
        this.sc.str = '';
      } else this.sc.capture = true;
    }
  }

  private valueEnd(): void {
    if (this.nameActive) {
      this.nameActive = false;
      this.sc.collect = false;
      const name = this.sc.str;
      this.sc.str = '';
      if (this.nameBad || this.sc.collectOverflow || !this.ctx.declared(name)) {
        this.rejected = true;
        this.sc.capture = false;
        this.sc.out = '';
      } else {
        this.tool = this.ctx.out.startCall(name);
        if (this.argsDone) this.sendStringArgs();
      }
    } else if (this.argsActive) {
      this.argsActive = false;
      this.argsDone = true;
      if (this.argsAsString) {
        this.sc.collect = false;
        this.argsString = this.sc.str;
        this.sc.str = '';
        if (this.committed) this.sendStringArgs();
      } else this.sc.capture = false;
    }
    this.drain();
  }

  private drain(): void {
    if (this.committed && this.sc.out.length > 0) {
      this.ctx.out.args(this.tool, this.sc.out);
      this.sc.out = '';
    }
  }

  private sendStringArgs(): void {
    if (!this.argsAsString) return;
    this.ctx.out.args(this.tool, unwrapStringArgs(this.argsString));
  }

  private endCall(): void {
    this.drain();
    if (!this.argsSeen) this.ctx.out.args(this.tool, '{}');
  }

  private cutOff(): void {
    if (this.argsActive && !this.argsAsString) {
      this.sc.out += this.sc.close();
      this.sc.capture = false;
      this.drain();
    } else if (this.argsActive) {
      this.ctx.out.args(this.tool, unwrapStringArgs(this.sc.str));
    } else {
      this.drain();
      if (!this.argsSeen) this.ctx.out.args(this.tool, '{}');
    }
    this.argsActive = false;
  }
}

/** Arguments given as a JSON string: the compact JSON it holds when it holds an object or array, else the string itself. */
function unwrapStringArgs(s: string): string {
  const t = s.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.stringify(JSON.parse(t));
    } catch {
      // not JSON inside: keep the string
    }
  }
  return JSON.stringify(s);
}

/** A bare arguments value (the format gave the name already); the call is committed by the caller. */
export class JsonArgsReader {
  private readonly sc: JsonScanner;
  private started = false;
  private wrapped = false;
  private sentAny = false;

  /** `wrapNonObject`: a value that is not an object is sent as `{"value": …}` (SMG's DeepSeek parsers). */
  constructor(
    private readonly out: ItemSink,
    private readonly tool: number,
    start: number,
    private readonly wrapNonObject = false,
  ) {
    this.sc = new JsonScanner(start);
    this.sc.capture = true;
  }

  get pos(): number {
    return this.sc.pos;
  }

  rebase(n: number): void {
    this.sc.rebase(n);
  }

  /** `final`: no more text will come (a top-level number ends at the end of the text). */
  step(buf: string, final: boolean): Step {
    if (!this.started && this.wrapNonObject) {
      let i = this.sc.pos;
      while (i < buf.length && isJsonWs(buf.charCodeAt(i))) i++;
      if (i === buf.length && !final) return Step.More;
      this.started = true;
      if (i < buf.length && buf.charCodeAt(i) !== 0x7b) {
        this.wrapped = true;
        this.out.args(this.tool, '{"value":');
      }
    }
    let ev = this.sc.scan(buf);
    if (ev === Ev.More && final) ev = this.sc.endOfInput();
    this.drain();
    if (ev === Ev.Done) {
      if (this.wrapped) this.out.args(this.tool, '}');
      return Step.Done;
    }
    if (ev === Ev.Error) {
      this.cutOff();
      return Step.Broken;
    }
    return Step.More;
  }

  /** The stream ended inside the value: close it. */
  cutOff(): void {
    const tail = this.sc.close();
    const empty = this.sc.out.length === 0 && !this.sentAny;
    this.drain();
    if (empty && tail === '') this.out.args(this.tool, this.wrapped ? 'null}' : '{}');
    else this.out.args(this.tool, tail + (this.wrapped ? '}' : ''));
  }

  private drain(): void {
    if (this.sc.out.length > 0) {
      this.sentAny = true;
      this.out.args(this.tool, this.sc.out);
      this.sc.out = '';
    }
  }
}
