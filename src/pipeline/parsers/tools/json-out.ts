/**
 * The writing side of JsonScanner: the compact JSON (`JSON.stringify(JSON.parse(raw))`, §11.3) of
 * the value being captured, written as it is read so that argument diffs are final the moment
 * they are produced. The scanner calls it only while capturing; depths are the scanner's
 * container depth at the call.
 *
 * Members are written one of two ways, because the parsers pin different results where a value
 * is cut off or repeated (request-pipeline §11.3 leaves both open):
 *
 * - eager (the JSON-family parsers): a key is written as soon as it is read; a repeated key is
 *   written again, as the model wrote it; a value cut off by the end of the text or by a syntax
 *   error is completed by `JsonScanner.close()` (`null`, the number's valid prefix, the literal).
 * - settled (the token-format parsers): a member is written only once its value has begun, and a
 *   number or literal only once it is complete, so a cut-off or broken member disappears with its
 *   key; a repeated key keeps its first value (that one has been streamed already) and later
 *   values are skipped, containers included.
 */
import { JsonStringWriter } from './compact-writer.js';

/*
 * Container kinds are the scanners' own numbers: odd kinds are written as objects, even ones as
 * arrays (JSON's 1 and 2; Python's dicts and keyword arguments, lists and tuples). Each scanner
 * keeps its kinds as local constants: an imported binding read per token costs a call under tsx.
 */
const NO_KEYS: Array<Set<string> | null> = [];

export class JsonOut {
  /** Compact JSON written so far; the caller drains it. */
  text = '';
  capturing = false;
  /** The depth the captured value starts at: containers below it are not part of the output. */
  base = 0;
  /** A comma is owed before the next element or member. */
  comma = false;
  readonly writer = new JsonStringWriter();
  /** settled: the member whose value has not begun (`,"key":`), or null. */
  member: string | null = null;
  /** settled: inside a value that is not written (a repeated key's), from `muteDepth` down. */
  muted = false;
  muteDepth = 0;
  private skipNext = false;
  /** settled: the keys of each captured object still open, innermost last (null while muted). */
  private readonly keys: Array<Set<string> | null>;

  constructor(readonly settled: boolean) {
    this.keys = settled ? [] : NO_KEYS;
  }

  /** Capturing starts or stops, at a value boundary at `depth`. */
  capture(on: boolean, depth: number): void {
    this.capturing = on;
    this.base = depth;
    this.comma = false;
    this.member = null;
    this.muted = false;
    this.skipNext = false;
  }

  /** A container opens at `depth` (before it is pushed). */
  open(kind: number, depth: number): void {
    const obj = (kind & 1) === 1;
    if (!this.settled) this.emit(obj ? '{' : '[');
    else if (this.begin(depth)) this.text += obj ? '{' : '[';
    if (this.settled && obj) this.keys.push(this.muted ? null : new Set());
  }

  /** A container closes; `depth` is the depth after it is popped. */
  close(kind: number, depth: number): void {
    this.comma = false;
    if (this.settled) {
      if (kind & 1) this.keys.pop();
      if (this.muted) {
        this.ended(depth);
        return;
      }
    }
    this.text += kind & 1 ? '}' : ']';
  }

  keyOpen(): void {
    if (!this.settled) this.emit('"');
    else if (!this.muted) {
      this.member = this.comma ? ',"' : '"';
      this.comma = false;
    }
  }

  /** Key content (decoded), escaped as it is written. */
  keyRun(run: string): void {
    if (!this.settled) this.text += this.writer.write(run);
    else if (!this.muted) this.member += this.writer.write(run);
  }

  keyUnit(c: number): void {
    if (!this.settled) this.text += this.writer.unit(c);
    else if (!this.muted) this.member += this.writer.unit(c);
  }

  keyClose(): void {
    if (!this.settled) {
      this.text += this.writer.end() + '"';
      return;
    }
    if (this.muted) return;
    const m = (this.member as string) + this.writer.end() + '"';
    // The escaped spelling identifies the key: compact escaping is one-to-one.
    const key = m.charCodeAt(0) === 0x2c ? m.slice(1) : m;
    const seen = this.keys[this.keys.length - 1];
    if (seen?.has(key)) {
      this.member = null;
      this.skipNext = true;
    } else {
      seen?.add(key);
      this.member = m;
    }
  }

  colon(): void {
    if (!this.settled) this.text += ':';
    else if (this.member !== null) this.member += ':';
  }

  /** A `,` after a value at `depth`. */
  separator(depth: number): void {
    if (depth > this.base && !this.muted) this.comma = true;
  }

  strOpen(depth: number): void {
    if (!this.settled) this.emit('"');
    else if (this.begin(depth)) this.text += '"';
  }

  strRun(run: string): void {
    if (!this.muted) this.text += this.writer.write(run);
  }

  strUnit(c: number): void {
    if (!this.muted) this.text += this.writer.unit(c);
  }

  strClose(depth: number): void {
    if (!this.muted) this.text += this.writer.end() + '"';
    else this.ended(depth);
  }

  /** A complete number or literal, already compact. */
  scalar(s: string, depth: number): void {
    if (!this.settled) this.emit(s);
    else if (this.begin(depth)) this.text += s;
    else this.ended(depth);
  }

  // ---- Cut off: the text that makes the output valid JSON when the input stops (or breaks off)
  // here. Eager completes what was begun; settled drops what is not complete. Nothing here
  // changes the state: the readers' `close()` appends the result and the closers.

  /** Inside a string (a key when `key`): eager closes it (a held high surrogate dropped), a key getting `null`; settled closes a value (the surrogate escaped) and drops a key. */
  cutString(key: boolean): string {
    if (this.settled) return key || this.muted ? '' : this.writer.end() + '"';
    this.writer.drop();
    return key ? '":null' : '"';
  }

  /** After a key, before its `:`: eager gives it `null`. */
  cutAfterKey(): string {
    return this.settled ? '' : ':null';
  }

  /** Where a value is `owed` (after `:` or `=`) but has not begun: eager writes `null`. */
  cutOwed(owed: boolean): string {
    return owed && !this.settled ? 'null' : '';
  }

  /**
   * Inside a number, literal or name at `depth`: eager writes `eager` (the token completed, or its
   * longest valid prefix; '' when none) — as a key with a `null` value when `key`; settled writes
   * `complete` (the token, only when it is complete; else null) and drops a key.
   */
  cutScalar(eager: string, complete: string | null, key: boolean, owed: boolean, depth: number): string {
    if (this.settled) {
      const prefix = key ? null : this.prefix(depth);
      return complete !== null && prefix !== null ? prefix + complete : '';
    }
    if (eager === '') return this.cutOwed(owed);
    const comma = this.comma ? ',' : '';
    return key ? comma + JSON.stringify(eager) + ':null' : comma + eager;
  }

  /** settled: what a value starting now at `depth` is written after (its member, or a comma), or null when it is not written. */
  private prefix(depth: number): string | null {
    if (this.muted || this.skipNext) return null;
    if (this.member !== null) return this.member;
    return this.comma && depth > this.base ? ',' : '';
  }

  /** The closers for containers still open, down to the captured value's. */
  closers(stack: readonly number[]): string {
    let s = '';
    for (let d = stack.length - 1; d >= this.base; d--) {
      if (this.muted && d >= this.muteDepth) continue;
      s += stack[d] & 1 ? '}' : ']';
    }
    return s;
  }

  /** eager: a value is written; a comma owed goes first. */
  private emit(s: string): void {
    if (this.comma) {
      this.text += ',';
      this.comma = false;
    }
    this.text += s;
  }

  /** settled: a value begins at `depth`; writes its member (or comma) and says whether to write the value. */
  private begin(depth: number): boolean {
    if (this.muted) return false;
    if (this.skipNext) {
      this.skipNext = false;
      this.muted = true;
      this.muteDepth = depth;
      return false;
    }
    if (this.member !== null) {
      this.text += this.member;
      this.member = null;
    } else if (this.comma) {
      this.text += ',';
      this.comma = false;
    }
    return true;
  }

  /** settled: a value ended at `depth`; the skipped one unmutes. */
  private ended(depth: number): void {
    if (this.muted && depth === this.muteDepth) this.muted = false;
  }
}
