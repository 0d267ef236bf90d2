/**
 * A bare arguments value after a name the format gave already (mistral's `NAME[ARGS]{…}`, the
 * DeepSeek formats, Kimi-K2's `<|tool_call_argument_begin|>{…}`), streamed as compact JSON into a
 * call the caller has started. What a value that is not an object becomes differs by format:
 * kept as it is (mistral), wrapped as `{"value": …}` (SMG's DeepSeek parsers), or skipped for
 * `{}` (the token formats). A value cut off or broken is closed (JsonScanner.close).
 */
import { isJsonWs } from './char-class.js';
import { Step } from './json-call.js';
import { Ev, type JsonDialect, JsonScanner, RFC_JSON } from './json-scan.js';
import type { ItemSink } from './sink.js';

export const enum NonObject {
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

  constructor(
    private readonly out: ItemSink,
    private readonly tool: number,
    start: number,
    private readonly nonObject = NonObject.Keep,
    dialect: JsonDialect = RFC_JSON,
  ) {
    this.sc = new JsonScanner(start, { dialect });
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
    if (!this.started && this.nonObject !== NonObject.Keep) {
      let i = this.sc.pos;
      while (i < end && isJsonWs(buf.charCodeAt(i))) i++;
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
      if (this.wrapped) this.out.args(this.tool, '}');
      else if (this.skipped) this.out.args(this.tool, '{}');
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
