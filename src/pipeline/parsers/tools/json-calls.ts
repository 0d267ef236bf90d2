/**
 * Calls written as JSON (or Python-literal) objects, one object per call, alone or in a list:
 * Cohere `[{"tool_call_id": "0", "tool_name": "f", "parameters": {…}}]`, Sarashina
 * `[{'name': 'f', 'arguments': {…}}]`, Inkling `{"name": "f", "args": {…}}`.
 *
 * A `JsonCallRegion` reads one such payload as it streams (json-stream.ts) and reports calls to
 * its parser: `tool_start` as soon as the name string is complete and declared, then the
 * arguments value as compact JSON pieces (json-compact-writer.ts). Arguments that come before
 * the name are held until the name arrives. Keys other than the name and arguments keys are
 * ignored.
 *
 * Until the payload's first call is accepted nothing has been reported, so a payload that turns
 * out not to be a call list (not an object, no name, an undeclared name, broken syntax) is
 * *abandoned*: the parser shows its raw text unchanged. After that, an object that is not an
 * acceptable call is shown as its raw text, and a syntax error ends the payload (calls in
 * progress are closed with what they have).
 */
import type { ToolSchema } from './types.js';
import { JsonTokenizer, type JsonSink } from './json-stream.js';
import { CompactJsonWriter } from './json-compact-writer.js';
import { HEADER_LIMIT } from './token-stream-base.js';
import { PARSER_BUFFER_LIMIT } from '../types.js';

export interface CallShape {
  /** Key of the function name (a string). */
  readonly nameKey: string;
  /** Keys that may hold the arguments (the first one present is used). */
  readonly argsKeys: readonly string[];
  /** Python literals (single quotes, True/False/None) instead of JSON. */
  readonly python: boolean;
  /** A list of calls is accepted at the top level (else only a single call object). */
  readonly list: boolean;
}

/** How a region reports to its parser. */
export interface CallEmitter {
  text(s: string): void;
  startCall(name: string): void;
  args(s: string): void;
  endCall(): void;
}

const NONE = 0;
const WANT_NAME = 1;
const WANT_ARGS = 2;
const WANT_SKIP = 3;

export class JsonCallRegion implements JsonSink {
  private readonly tok: JsonTokenizer;
  private depth = 0;
  private mode: 'unknown' | 'list' | 'single' = 'unknown';
  /** A call of this payload has been reported; abandoning is no longer possible. */
  private committed = false;
  private gaveUp = false;
  private ended = false;
  private raw = '';
  private chunk = '';
  private rawOverflow = false;

  // The call object being read.
  private inCall = false;
  private callDepth = 0;
  private objStart = 0;
  private started = false;
  private want = NONE;
  private collectingName = false;
  private nameText = '';
  private nameSeen = false;
  private argsSeen = false;
  private routing = false;
  private routeDepth = 0;
  private writer: CompactJsonWriter | null = null;
  private pendingArgs = '';

  constructor(
    private readonly shape: CallShape,
    private readonly declared: ReadonlyMap<string, ToolSchema>,
    private readonly out: CallEmitter,
    /** A declared name known before the payload (Inkling's message header): the payload is its call. */
    private readonly presetName?: string,
  ) {
    this.tok = new JsonTokenizer(this, shape.python);
    if (presetName !== undefined) {
      this.committed = true;
      this.started = true;
      out.startCall(presetName);
    }
  }

  /** The payload's value is complete, or it stopped being valid: the rest is not payload. */
  get finished(): boolean {
    return this.ended || this.abandoned || this.tok.done || this.tok.failed;
  }

  /** The payload cannot be calls: the parser shows `rawText` as text instead. */
  get abandoned(): boolean {
    return this.gaveUp;
  }

  /** The payload stopped being valid JSON (as opposed to its value ending). */
  get broken(): boolean {
    return this.tok.failed;
  }

  /** The raw text consumed so far (what an abandoned payload shows). */
  get rawText(): string {
    return this.raw;
  }

  /** Feeds payload text; returns how much was consumed (less when the payload ended). */
  write(text: string): number {
    if (this.finished) return 0;
    this.chunk = text;
    const n = this.tok.write(text);
    this.appendRaw(text.slice(0, n));
    this.chunk = '';
    if (this.abandoned) return n;
    if (!this.committed && this.raw.length > PARSER_BUFFER_LIMIT) {
      this.abandon();
      return n;
    }
    this.flushArgs();
    if (this.tok.done || this.tok.failed) this.end();
    return n;
  }

  /** The payload ends here (end marker, end of stream, or its value ended). */
  end(): void {
    if (this.ended || this.abandoned) return;
    this.tok.end();
    this.ended = true;
    if (this.abandoned) return;
    if (this.inCall || (this.presetName !== undefined && this.started)) this.finishCall();
    if (!this.committed) this.abandon();
  }

  // ---- JsonSink ----

  beginObject(): void {
    if (this.routing || this.valueStart('object')) this.writer!.beginObject();
    this.depth++;
  }

  endObject(): void {
    this.depth--;
    if (this.routing) {
      this.writer!.endObject();
      if (this.depth === this.routeDepth) this.routing = false;
    } else if (this.inCall && this.depth === this.callDepth - 1) {
      this.finishCall();
    }
  }

  beginArray(): void {
    if (this.routing || this.valueStart('array')) this.writer!.beginArray();
    this.depth++;
  }

  endArray(): void {
    this.depth--;
    if (this.routing) {
      this.writer!.endArray();
      if (this.depth === this.routeDepth) this.routing = false;
    }
  }

  key(name: string): void {
    if (this.routing) {
      this.writer!.key(name);
      return;
    }
    if (!this.isCallMember()) return;
    if (name === this.shape.nameKey && !this.nameSeen && this.presetName === undefined) this.want = WANT_NAME;
    else if (!this.argsSeen && this.shape.argsKeys.includes(name)) this.want = WANT_ARGS;
    else this.want = WANT_SKIP;
  }

  beginString(): void {
    if (this.routing) {
      this.writer!.beginString();
      return;
    }
    if (this.isCallMember() && this.want === WANT_NAME) {
      this.want = NONE;
      this.collectingName = true;
      this.nameText = '';
      return;
    }
    if (this.valueStart('string')) this.writer!.beginString();
  }

  stringChunk(text: string): void {
    if (this.routing) this.writer!.stringChunk(text);
    else if (this.collectingName && this.nameText.length <= HEADER_LIMIT) this.nameText += text;
  }

  endString(): void {
    if (this.routing) {
      this.writer!.endString();
      if (this.depth === this.routeDepth) this.routing = false;
    } else if (this.collectingName) {
      this.collectingName = false;
      this.nameComplete(this.nameText);
    }
  }

  scalar(json: string): void {
    if (this.routing || this.valueStart('scalar')) {
      this.writer!.scalar(json);
      if (this.depth === this.routeDepth) this.routing = false;
    }
  }

  // ---- call bookkeeping ----

  private isCallMember(): boolean {
    return this.inCall && this.depth === this.callDepth;
  }

  /**
   * A value starts outside routed arguments (`depth` not yet incremented). Returns true when it
   * is the arguments value: routing starts and the caller hands this first token to the writer.
   */
  private valueStart(kind: 'object' | 'array' | 'string' | 'scalar'): boolean {
    if (this.depth === 0) {
      if (kind === 'object') {
        this.mode = 'single';
        this.beginCall();
      } else if (kind === 'array' && this.shape.list && this.mode === 'unknown') {
        this.mode = 'list';
      } else {
        this.badItem();
      }
      return false;
    }
    if (this.mode === 'list' && this.depth === 1) {
      if (kind === 'object') this.beginCall();
      else this.badItem();
      return false;
    }
    if (!this.isCallMember()) return false;
    const want = this.want;
    this.want = NONE;
    if (want === WANT_NAME) {
      this.nameSeen = true; // the name is not a string: this call has no usable name
      return false;
    }
    if (want !== WANT_ARGS) return false;
    this.argsSeen = true;
    this.writer = new CompactJsonWriter(true);
    this.routing = true;
    this.routeDepth = this.depth;
    return true;
  }

  private beginCall(): void {
    this.inCall = true;
    this.callDepth = this.depth + 1;
    this.objStart = this.rawPos();
    this.want = NONE;
    this.collectingName = false;
    this.nameSeen = false;
    this.argsSeen = false;
    this.pendingArgs = '';
    this.writer = null;
    if (this.presetName === undefined) this.started = false;
  }

  private nameComplete(name: string): void {
    this.nameSeen = true;
    if (!this.declared.has(name)) {
      if (!this.committed) this.abandon();
      return; // undeclared after a reported call: shown as raw text when the object ends
    }
    this.committed = true;
    this.started = true;
    this.out.startCall(name);
    if (this.pendingArgs) this.out.args(this.pendingArgs);
    this.pendingArgs = '';
  }

  private finishCall(): void {
    if (this.started) {
      const w = this.writer;
      const s = w && w.started ? this.pendingArgs + w.close() : '{}';
      this.pendingArgs = '';
      this.out.args(s);
      this.out.endCall();
    } else if (!this.committed) {
      this.abandon();
    } else if (!this.rawOverflow) {
      // Not an acceptable call after one was reported: its own text stays content.
      this.out.text((this.raw + this.chunk.slice(0, this.tok.pos + 1)).slice(this.objStart));
    }
    this.inCall = false;
    this.started = false;
    this.writer = null;
    this.routing = false;
  }

  private badItem(): void {
    if (!this.committed) this.abandon();
  }

  private abandon(): void {
    if (this.committed) return;
    this.gaveUp = true;
    this.tok.stop();
  }

  private flushArgs(): void {
    if (!this.writer) return;
    const s = this.writer.take();
    if (!s) return;
    if (this.started) this.out.args(s);
    else this.pendingArgs += s;
  }

  private rawPos(): number {
    return this.raw.length + this.tok.pos;
  }

  private appendRaw(s: string): void {
    if (this.rawOverflow) return;
    if (this.raw.length + s.length > PARSER_BUFFER_LIMIT && this.committed) {
      this.rawOverflow = true;
      this.raw = '';
      return;
    }
    this.raw += s;
  }
}
