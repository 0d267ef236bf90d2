/**
 * One HTTP request's generation: submit every choice (n > 1 fan-out, completions batches) to the
 * worker's engine client, decode each choice's tokens through its own StopDecoder and parsers, and
 * merge the choices into one stream of events. A choice that stops on a stop string aborts its
 * engine request at once instead of letting the engine run on (an improvement over SMG).
 *
 * Push mode: each engine output is handled synchronously as the engine client decodes it
 * (`RequestStream.listen`), through detokenize → stop match → parsers → the sink, with no promise
 * or queue hop per engine step.
 */
import type { CancelSignal } from './cancel-signal.js';
import { EngineError, type ChunkListener, type EngineClientApi, type EngineChunk, type RequestStream } from '../engine/client-types.js';
import type { EngineRequest, TokenLogprob } from '../engine/types.js';
import { AsyncQueue } from './async-queue.js';
import type { Decoder } from './detokenizer.js';
import { PipelineError } from './errors.js';
import type { FinishKind, GenEvent, GenerationSink } from './events.js';
import type { ChoiceSpec } from './fan-out.js';
import { ChoiceOutput } from './output/choice-output.js';
import type { OutputPlan } from './output/output-plan.js';
import { StopDecoder } from './stop-decoder.js';

export interface DecodeRules {
  stopStrings: readonly string[];
  /** Single-token stop strings: id → string (reported as the matched stop). */
  tokenStopStrings: ReadonlyMap<number, string>;
  /** Ids that end a choice without being shown (user stop ids; EOS unless ignore_eos). */
  stopTokenIds: readonly number[];
  keepStop: boolean;
  skipSpecialTokens: boolean;
}

export interface GenerateOptions {
  client: EngineClientApi;
  tokenizer: Decoder;
  choices: ChoiceSpec[];
  rules: DecodeRules;
  /** Client disconnect. */
  signal: CancelSignal;
  timeoutMs: number;
  /** Whether the client streams (TokenSpeed sends fewer rows when not). */
  stream: boolean;
  observer?: GenerationObserver;
  /** How each choice's text becomes events (parsers); null = plain content. */
  output?: OutputPlan | null;
  /** Also emit each engine step's token ids (`tokens` events). */
  tokenIds?: boolean;
  /** Scheduling priority on the wire (vLLM field 13; TokenSpeed has no slot for it). */
  priority?: number;
  /**
   * Another worker's engine client for a request whose engine died before its first token, or
   * null when there is none left to try (retries off or exhausted, no other ready worker).
   */
  reroute?: () => EngineClientApi | null;
}

/** Request-level facts for metrics, reported as they happen (once each, except choiceEnded). */
export interface GenerationObserver {
  firstText(): void;
  choiceEnded(promptTokens: number, completionTokens: number, index: number, finishReason: string): void;
  /**
   * Choice `index` was submitted to data-parallel rank `rank`. What it returns sees each of that
   * choice's engine outputs: the choice holds it, so an engine step reaches the metrics through
   * one object per stream instead of the observer, the recorder and its table of choices (issue 30:
   * at 1,000 paced streams each of those is a cache miss per token).
   */
  choiceStarted?(index: number, rank: number): ChoiceMeter | undefined;
  /** All choices ended (error null), or the generation failed. */
  done(error: unknown): void;
}

/** Sees one choice's engine outputs (per engine step: keep it cheap). */
export interface ChoiceMeter {
  step(newTokens: number, queuedSecs: number | undefined): void;
}

export interface Generation {
  /** Stops every choice that is still running (the client went away); the sink gets `end`. */
  abort(): void;
}

const ENGINE_ERROR_FINISH = 'engine finished the request with an error (see engine logs)';

/**
 * Submits every choice and wires their outputs to `sink`. Submission failures throw before
 * anything is sent to the sink, so the caller can still answer with a proper HTTP status.
 */
export function startChoices(opts: GenerateOptions, sink: GenerationSink): Generation {
  return new MergedGeneration(opts, submitAll(opts, opts.client), sink);
}

/** Submits every choice to `client`; on a refusal the ones already sent are aborted. */
function submitAll(opts: GenerateOptions, client: EngineClientApi): RequestStream[] {
  const streams: RequestStream[] = [];
  try {
    // Stop strings are matched here, so the engine must report every step (TokenSpeed's
    // non-streaming cadence would otherwise let it run on long after a match).
    const engineStream = opts.stream || opts.rules.stopStrings.length > 0 || opts.output?.incremental === true;
    for (const c of opts.choices) streams.push(client.submit(toEngineRequest(c, engineStream, opts.priority ?? 0)));
  } catch (err) {
    for (const s of streams) client.abort(s.requestId);
    throw err;
  }
  return streams;
}

/** The engine went away (died, closed, lost its socket): another engine may serve the request. */
function isEngineLoss(err: unknown): boolean {
  return err instanceof EngineError && (err.kind === 'dead' || err.kind === 'closed' || err.kind === 'transport');
}

/** `startChoices` with the events queued for async iteration (non-streaming paths and tests). */
export function generate(opts: GenerateOptions): AsyncQueue<GenEvent> {
  const queue = new AsyncQueue<GenEvent>();
  startChoices(opts, { push: (ev) => queue.push(ev), end: () => queue.end(), fail: (err) => queue.fail(err) });
  return queue;
}

function toEngineRequest(c: ChoiceSpec, stream: boolean, priority: number): EngineRequest {
  return {
    requestId: c.wireId,
    promptTokenIds: c.promptTokenIds,
    sampling: c.sampling,
    arrivalTime: Date.now() / 1000,
    cacheSalt: null,
    dataParallelRank: null,
    priority,
    stream,
  };
}

/** The choices of one request: ends the sink when every choice ended, fails it on the first error. */
class MergedGeneration implements Generation {
  private readonly live = new Set<string>();
  private remaining: number;
  private settled = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = () => this.abort();
  private sawText = false;
  /** Any event reached the sink: from then on the request is committed to this engine. */
  private pushed = false;
  /** The engine client the live choices run on (another one after a reroute). */
  client: EngineClientApi;
  private runners: ChoiceRunner[] = [];

  constructor(
    private readonly opts: GenerateOptions,
    streams: RequestStream[],
    private readonly sink: GenerationSink,
  ) {
    this.client = opts.client;
    this.remaining = streams.length;
    this.timer = setTimeout(() => {
      this.fail(new PipelineError(504, 'request_timeout', `Request timed out after ${opts.timeoutMs / 1000}s`));
    }, opts.timeoutMs);
    this.timer.unref();
    if (opts.signal.aborted) queueMicrotask(this.onAbort);
    else opts.signal.addEventListener('abort', this.onAbort, { once: true });
    this.listenAll(streams);
  }

  private listenAll(streams: RequestStream[]): void {
    this.runners = streams.map((s, i) => {
      this.live.add(s.requestId);
      const meter = this.opts.observer?.choiceStarted?.(this.opts.choices[i].index, s.rank) ?? null;
      const runner = new ChoiceRunner(s, this.opts.choices[i], this.opts, this, meter);
      s.listen(runner);
      return runner;
    });
  }

  /**
   * The engine died before the request's first token: nothing reached the client, so every choice
   * starts again on another worker's engine (as the forwarder retries before the first byte).
   */
  private reroute(): boolean {
    const next = this.opts.reroute?.() ?? null;
    if (next === null) return false;
    let streams: RequestStream[];
    try {
      streams = submitAll(this.opts, next);
    } catch {
      return false;
    }
    for (const r of this.runners) r.retire();
    const old = this.client;
    for (const id of this.live) old.abort(id);
    this.live.clear();
    this.client = next;
    this.remaining = streams.length;
    this.listenAll(streams);
    return true;
  }

  /** A choice's event, with the request-level facts the observer wants. */
  push(ev: GenEvent): void {
    if (this.settled) return;
    // Past the first event, a token's event goes straight to the sink: per stream per engine
    // step this object is all it reaches (issue 30), not the options and the observer.
    if (!this.sawText || ev.kind === 'end') this.observe(ev);
    this.sink.push(ev);
  }

  private observe(ev: GenEvent): void {
    this.pushed = true;
    const observer = this.opts.observer;
    if (ev.kind === 'end') observer?.choiceEnded(ev.promptTokens, ev.completionTokens, ev.index, ev.finishReason);
    else {
      this.sawText = true;
      observer?.firstText();
    }
  }

  choiceDone(requestId: string): void {
    this.live.delete(requestId);
    if (--this.remaining > 0 || this.settled) return;
    this.settle();
    this.sink.end();
    this.opts.observer?.done(null);
  }

  fail(err: unknown): void {
    if (this.settled) return;
    if (!this.pushed && isEngineLoss(err) && this.reroute()) return;
    // Settled first: the aborted choices' own endings are not events any more.
    this.settle();
    this.abortLive();
    this.sink.fail(err);
    this.opts.observer?.done(err);
  }

  abort(): void {
    if (this.settled) return;
    this.settle();
    this.abortLive();
    this.sink.end();
    this.opts.observer?.done(null);
  }

  private abortLive(): void {
    const ids = [...this.live];
    this.live.clear();
    for (const id of ids) this.client.abort(id);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.opts.signal.removeEventListener('abort', this.onAbort);
  }
}

/** One choice: engine chunks in, events out. */
class ChoiceRunner implements ChunkListener {
  private readonly decoder: StopDecoder;
  private readonly output: ChoiceOutput;
  private completionTokens = 0;
  private promptTokens: number;
  private cachedTokens = 0;
  private pending: TokenLogprob[] | null = null;
  private done = false;
  /** The options read per engine step, held here: one object less to reach per token. */
  private readonly keepStop: boolean;
  private readonly tokenIds: boolean;

  constructor(
    private readonly stream: RequestStream,
    choice: ChoiceSpec,
    private readonly opts: GenerateOptions,
    private readonly gen: MergedGeneration,
    private readonly meter: ChoiceMeter | null,
  ) {
    const { rules } = opts;
    this.keepStop = rules.keepStop;
    this.tokenIds = opts.tokenIds === true;
    this.decoder = new StopDecoder(opts.tokenizer, {
      skipSpecialTokens: rules.skipSpecialTokens,
      stopStrings: rules.stopStrings,
      stopTokenIds: rules.stopTokenIds,
      noStopTrim: rules.keepStop,
      tokenStopStrings: rules.tokenStopStrings,
      promptIds: choice.promptTokenIds,
    });
    this.output = new ChoiceOutput(choice.index, opts.output ?? null, opts.stream, gen);
    this.promptTokens = choice.promptTokenIds.length;
  }

  private get index(): number {
    return this.output.index;
  }

  chunk(chunk: EngineChunk): void {
    if (this.done) return;
    try {
      this.step(chunk);
    } catch (err) {
      // A decoder or parser failure fails the request, as an engine error would.
      this.done = true;
      this.gen.fail(err);
    }
  }

  end(): void {
    // The stream ended without a terminal output: the request was aborted (client gone).
    if (!this.done) this.finish('abort', null);
  }

  fail(err: EngineError): void {
    if (this.done) return;
    this.done = true;
    this.gen.fail(err);
  }

  /** Its engine was replaced (reroute): whatever the old stream still reports is ignored. */
  retire(): void {
    this.done = true;
  }

  private step(chunk: EngineChunk): void {
    this.completionTokens += chunk.newTokenIds.length;
    this.meter?.step(chunk.newTokenIds.length, chunk.queuedSecs);
    if (chunk.promptTokens) this.promptTokens = chunk.promptTokens;
    if (chunk.cachedTokens) this.cachedTokens = Math.max(this.cachedTokens, chunk.cachedTokens);
    if (chunk.logprobs) this.pending = this.pending ? this.pending.concat(chunk.logprobs) : chunk.logprobs;
    if (chunk.finish === 'error') throw new EngineError('engine_error', chunk.errorMessage ?? ENGINE_ERROR_FINISH);
    if (chunk.finish === 'abort' && chunk.errorMessage && this.completionTokens === 0) {
      // An abort we did not ask for, before any token: the engine refused the request.
      throw new EngineError('invalid', `engine rejected the request: ${chunk.errorMessage}`);
    }
    if (this.tokenIds && chunk.newTokenIds.length > 0) this.gen.push({ kind: 'tokens', index: this.index, ids: chunk.newTokenIds });

    const r = this.decoder.push(visibleIds(chunk, this.keepStop));
    if (r.text && this.output.push(r.text, this.pending)) this.pending = null;
    const parserStop = this.output.matchedStop;
    if (parserStop !== null || r.stopped) {
      this.done = true;
      if (chunk.finish === null) this.gen.client.abort(this.stream.requestId);
      this.finish('stop', parserStop ?? r.matchedStop ?? engineStop(chunk, this.opts.rules));
      return;
    }
    if (chunk.finish !== null) {
      this.done = true;
      const tail = this.decoder.finish();
      if (tail.text && this.output.push(tail.text, this.pending)) this.pending = null;
      const reason: FinishKind = tail.stopped || chunk.finish === 'repetition' ? 'stop' : chunk.finish;
      this.finish(reason, tail.matchedStop ?? engineStop(chunk, this.opts.rules));
    }
  }

  private finish(reason: FinishKind, matchedStop: string | number | null): void {
    this.done = true;
    const finishReason = this.output.finish(reason);
    const { promptTokens, completionTokens, cachedTokens, pending } = this;
    this.gen.push({ kind: 'end', index: this.index, finishReason, matchedStop, promptTokens, completionTokens, cachedTokens, logprobs: pending });
    this.gen.choiceDone(this.stream.requestId);
  }
}

/** The engine marks a finishing stop token; it is counted but never shown unless kept. */
function visibleIds(chunk: EngineChunk, keepStop: boolean): readonly number[] {
  if (!keepStop && chunk.finish === 'stop' && chunk.endsWithStopToken && chunk.newTokenIds.length > 0) {
    return chunk.newTokenIds.slice(0, -1);
  }
  return chunk.newTokenIds;
}

/**
 * The engine reports a stop token id; a single-token stop string is reported as the string.
 * TokenSpeed reports no stop reason, but marks the finishing stop token: when that token stands
 * for a stop string, the string is reported the same way on both engines.
 */
function engineStop(chunk: EngineChunk, rules: DecodeRules): string | number | null {
  const { stopReason } = chunk;
  if (typeof stopReason === 'number') return rules.tokenStopStrings.get(stopReason) ?? stopReason;
  if (stopReason === null && chunk.finish === 'stop' && chunk.endsWithStopToken && chunk.newTokenIds.length > 0) {
    return rules.tokenStopStrings.get(chunk.newTokenIds[chunk.newTokenIds.length - 1]) ?? null;
  }
  return stopReason;
}
