/**
 * Reading one call object, `{"name": …, "arguments" | "parameters": …}` (json, qwen, llama,
 * mistral's array form) or a format's variant of it (Cohere's `tool_name`/`parameters`, Inkling's
 * `args`, Sarashina's Python dict), as it streams. Keys may come in any order and other keys are
 * ignored; the call commits when the name string ends and names a declared tool, and its
 * arguments stream from then on (arguments written before the name are sent at the commit). The
 * first name and the first arguments key win. Missing arguments are `{}`.
 *
 * What the arguments may be is the shape's choice (`objectArgs`): the JSON-family formats take any
 * JSON value and unwrap a JSON string holding JSON (`"arguments": "{\"a\": 1}"`, as some
 * fine-tunes copy from the OpenAI wire format); the token formats take an object only and send
 * `{}` for anything else. A committed call that is cut off or turns malformed still ends, its
 * arguments closed (see JsonScanner.close).
 */
import { Ev as EvEnum, type JsonDialect, JsonScanner, MODEL_JSON, RFC_JSON } from './json-scan.js';
import type { ItemSink } from './sink.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const Ev = EvEnum;
type Ev = EvEnum;

export enum Step {
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

/** What the call readers need from a value scanner (json-scan.ts, or py-literal.ts for Python literals). */
export interface ValueScanner {
  pos: number;
  out: string;
  readonly key: string;
  str: string;
  collect: boolean;
  collectLimit: number;
  collectOverflow: boolean;
  capture: boolean;
  readonly done: boolean;
  scan(buf: string, end?: number): Ev;
  endOfInput(): Ev;
  close(): string;
  rebase(n: number): void;
}

/** The literal syntax calls are written in. */
export interface CallSyntax {
  /** A scanner at `pos`; with `events`, one that stops at the keys and values of a top-level object. */
  scanner(pos: number, events: boolean): ValueScanner;
  /** Whether a value starting with `c` is a string (a call's name must be one). */
  isQuote(c: number): boolean;
}

function jsonSyntax(dialect: JsonDialect): CallSyntax {
  const withEvents = { events: true, dialect };
  const without = { events: false, dialect };
  return { scanner: (pos, events) => new JsonScanner(pos, events ? withEvents : without), isQuote: (c) => c === 0x22 };
}

export const RFC_SYNTAX = jsonSyntax(RFC_JSON);
export const MODEL_SYNTAX = jsonSyntax(MODEL_JSON);

export interface CallShape {
  readonly nameKey: string;
  readonly argKeys: readonly string[];
  /** Arguments must be an object (anything else is skipped and sent as `{}`); else any value, JSON strings unwrapped. */
  readonly objectArgs: boolean;
  readonly syntax: CallSyntax;
}

/** The JSON-family call object. */
export const JSON_CALL: CallShape = { nameKey: 'name', argKeys: ['arguments', 'parameters'], objectArgs: false, syntax: RFC_SYNTAX };

export interface CallContext {
  readonly out: ItemSink;
  declared(name: string): boolean;
}

export interface CallOptions {
  /** The call was started already as this tool index (a name the format gave before the object); the object's name key is then an ordinary key. */
  preset?: number;
  /** A name string that is not a declared tool rejects the object at once (at the name's end), not at the object's end. */
  rejectEarly?: boolean;
}

const NO_OPTIONS: CallOptions = {};

export class JsonCallReader {
  /** Index of the committed call, or -1 while undecided. */
  tool = -1;
  private readonly sc: ValueScanner;
  private readonly named: boolean;
  private key = '';
  private nameSeen = false;
  private nameActive = false;
  private nameBad = false;
  private rejected = false;
  private argsSeen = false;
  private argsActive = false;
  private argsDone = false;
  private argsAsString = false;
  /** objectArgs: the arguments value was not an object, so `{}` is sent. */
  private argsSkipped = false;
  private argsString = '';

  constructor(
    private readonly ctx: CallContext,
    start: number,
    private readonly shape: CallShape = JSON_CALL,
    private readonly opts: CallOptions = NO_OPTIONS,
  ) {
    this.sc = shape.syntax.scanner(start, true);
    this.named = opts.preset === undefined;
    if (opts.preset !== undefined) this.tool = opts.preset;
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
          if (this.valueEnd() && this.opts.rejectEarly) return Step.Reject;
          break;
        case Ev.Done:
          if (!this.committed) return Step.Reject;
          this.endCall();
          return Step.Done;
        case Ev.Error:
          if (!this.committed) return Step.Reject;
          this.cutOff();
          return Step.Broken;
        default:
          break;
      }
    }
  }

  /** The stream ended inside the object: a committed call is closed; an undecided one stays text (the caller releases it). */
  finish(): void {
    if (this.committed) this.cutOff();
  }

  private valueStart(c: number): void {
    if (this.named && this.key === this.shape.nameKey && !this.nameSeen) {
      this.nameSeen = true;
      this.nameActive = true;
      if (this.shape.syntax.isQuote(c)) {
        this.sc.collect = true;
        this.sc.collectLimit = NAME_LIMIT;
        this.sc.str = '';
      } else this.nameBad = true;
    } else if (!this.argsSeen && !this.rejected && this.shape.argKeys.includes(this.key)) {
      this.argsSeen = true;
      this.argsActive = true;
      if (this.shape.objectArgs) {
        if (c === 0x7b) this.sc.capture = true;
        else this.argsSkipped = true;
      } else if (c === 0x22) {
        this.argsAsString = true;
        this.sc.collect = true;
        this.sc.collectLimit = Number.POSITIVE_INFINITY;
        this.sc.str = '';
      } else this.sc.capture = true;
    }
  }

  /** Returns true when a name string just turned out not to be a declared tool. */
  private valueEnd(): boolean {
    let undeclared = false;
    if (this.nameActive) {
      this.nameActive = false;
      this.sc.collect = false;
      const name = this.sc.str;
      this.sc.str = '';
      if (this.nameBad || this.sc.collectOverflow || !this.ctx.declared(name)) {
        undeclared = !this.nameBad;
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
    return undeclared;
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
    if (!this.argsSeen || this.argsSkipped) this.ctx.out.args(this.tool, '{}');
  }

  private cutOff(): void {
    if (this.argsActive && this.argsAsString) {
      this.ctx.out.args(this.tool, unwrapStringArgs(this.sc.str));
    } else if (this.argsActive && !this.argsSkipped) {
      this.sc.out += this.sc.close();
      this.sc.capture = false;
      this.drain();
    } else {
      this.drain();
      if (!this.argsSeen || this.argsSkipped) this.ctx.out.args(this.tool, '{}');
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
