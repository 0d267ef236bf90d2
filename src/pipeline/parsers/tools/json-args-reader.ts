/**
 * A bare arguments value after a name the format gave already (mistral's `NAME[ARGS]{…}`, the
 * DeepSeek formats, Kimi-K2's `<|tool_call_argument_begin|>{…}`), streamed as compact JSON into a
 * call the caller has started. What a value that is not an object becomes differs by format:
 * kept as it is (mistral), wrapped as `{"value": …}` (SMG's DeepSeek parsers), or skipped for
 * `{}` (the token formats). A value cut off or broken is closed (JsonScanner.close).
 */
import { isJsonWs as isWsImport } from './char-class.js';
import { Step as StepEnum } from './json-call.js';
import { Ev as EvEnum, type JsonDialect, JsonScanner, RFC_JSON } from './json-scan.js';
import type { ItemSink } from './sink.js';

// Bound once: under tsx every read of an imported binding is a getter call, and these are read per character or step.
const isJsonWs = isWsImport;
const Step = StepEnum;
type Step = StepEnum;
const Ev = EvEnum;

const RFC_OPTIONS = { dialect: RFC_JSON };

export enum NonObject {
  Keep,
  /** `{"value": …}` */
  Wrap,
  /** Skipped; the arguments are `{}`. */
  Skip,
}

export class JsonArgsReader {
  private readonly sc: JsonScanner;
  private started = false;
  private wrapped = false;
  private skipped = false;
  private sentAny = false;
  /** How the value ended (Done or Broken), once it has: later steps change nothing. */
  private ended: Step | null = null;
  private closed = false;

  /**
   * `closeAtEnd`: a value that breaks off, or is skipped, is closed by `cutOff()` when the
   * format's end marker comes (Kimi-K2), rather than where the value stopped.
   */
  constructor(
    private readonly out: ItemSink,
    private readonly tool: number,
    start: number,
    private readonly nonObject = NonObject.Keep,
    dialect: JsonDialect = RFC_JSON,
    private readonly closeAtEnd = false,
  ) {
    this.sc = new JsonScanner(start, dialect === RFC_JSON ? RFC_OPTIONS : { dialect });
    this.sc.capture = nonObject === NonObject.Keep;
  }

  get pos(): number {
    return this.sc.pos;
  }

  rebase(n: number): void {
    this.sc.rebase(n);
  }

  /** Reads up to `end`; `final`: no more text will come (a top-level number ends at `end`). */
  step(buf: string, final: boolean, end = buf.length): Step {
    if (this.ended !== null) return this.ended;
    if (!this.started && this.nonObject !== NonObject.Keep) {
      let i = this.sc.pos;
      while (i < end && isJsonWs(buf.charCodeAt(i))) i++;
      this.sc.pos = i;
      if (i === end && !final) return Step.More;
      this.started = true;
      const isObject = i < end && buf.charCodeAt(i) === 0x7b;
      if (this.nonObject === NonObject.Skip) {
        this.skipped = i < end && !isObject;
        this.sc.capture = !this.skipped;
      } else {
        this.sc.capture = true;
        if (i < end && !isObject) {
          this.wrapped = true;
          this.out.args(this.tool, '{"value":');
        }
      }
    }
    let ev = this.sc.scan(buf, end);
    if (ev === Ev.More && final) ev = this.sc.endOfInput();
    this.drain();
    if (ev === Ev.Done) {
      this.ended = Step.Done;
      if (this.wrapped) this.out.args(this.tool, '}');
      else if (this.skipped && !this.closeAtEnd) this.close();
      return Step.Done;
    }
    if (ev === Ev.Error) {
      this.ended = Step.Broken;
      if (!this.closeAtEnd) this.close();
      return Step.Broken;
    }
    return Step.More;
  }

  /** The stream ended inside the value (or it broke off): close it; nothing to do once it ended. */
  cutOff(): void {
    if (this.closed || (this.ended === Step.Done && !this.skipped)) return;
    if (this.ended === null) this.ended = Step.Broken;
    this.close();
  }

  private close(): void {
    this.closed = true;
    const tail = this.sc.capture ? this.sc.close() : '';
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
