/**
 * One HTTP request's generation: submit every choice (n > 1 fan-out, completions batches) to the
 * worker's engine client, decode each choice's tokens through its own StopDecoder, and merge the
 * choices into one ordered stream of events. A choice that stops on a stop string aborts its engine
 * request at once instead of letting the engine run on (an improvement over SMG).
 */
import { EngineError, type EngineClientApi, type EngineChunk, type RequestStream } from '../engine/client-types.js';
import type { EngineRequest, TokenLogprob } from '../engine/types.js';
import { AsyncQueue } from './async-queue.js';
import type { Decoder } from './detokenizer.js';
import { PipelineError } from './errors.js';
import type { EventSink, FinishKind, GenEvent } from './events.js';
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
  signal: AbortSignal;
  timeoutMs: number;
  /** Whether the client streams (TokenSpeed sends fewer rows when not). */
  stream: boolean;
  observer?: GenerationObserver;
  /** How each choice's text becomes events (parsers); null = plain content. */
  output?: OutputPlan | null;
  /** Also emit each engine step's token ids (`tokens` events). */
  tokenIds?: boolean;
}

/** Request-level facts for metrics, reported as they happen (once each, except choiceEnded). */
export interface GenerationObserver {
  firstText(): void;
  choiceEnded(promptTokens: number, completionTokens: number): void;
  /** All choices ended (error null), or the generation failed. */
  done(error: unknown): void;
}

/** Forwards events to the queue, telling the observer about the first text and each end. */
function observed(queue: AsyncQueue<GenEvent>, observer: GenerationObserver): EventSink {
  let sawText = false;
  return {
    push(ev) {
      if (ev.kind === 'end') observer.choiceEnded(ev.promptTokens, ev.completionTokens);
      else if (!sawText) {
        sawText = true;
        observer.firstText();
      }
      queue.push(ev);
    },
  };
}

const ENGINE_ERROR_FINISH = 'engine finished the request with an error (see engine logs)';

/**
 * Submits every choice, then returns the merged event stream. Submission failures throw before
 * anything is returned, so the caller can still answer with a proper HTTP status.
 */
export function generate(opts: GenerateOptions): AsyncQueue<GenEvent> {
  const { client } = opts;
  const streams: RequestStream[] = [];
  try {
    // Stop strings are matched here, so the engine must report every step (TokenSpeed's
    // non-streaming cadence would otherwise let it run on long after a match).
    const engineStream = opts.stream || opts.rules.stopStrings.length > 0;
    for (const c of opts.choices) streams.push(client.submit(toEngineRequest(c, engineStream)));
  } catch (err) {
    for (const s of streams) client.abort(s.requestId);
    throw err;
  }

  const queue = new AsyncQueue<GenEvent>();
  const live = new Set(streams.map((s) => s.requestId));
  const abortAll = () => {
    for (const id of live) client.abort(id);
    live.clear();
  };
  const timer = setTimeout(() => {
    abortAll();
    queue.fail(new PipelineError(504, 'request_timeout', `Request timed out after ${opts.timeoutMs / 1000}s`));
  }, opts.timeoutMs);
  timer.unref();
  const onAbort = () => {
    abortAll();
    queue.end();
  };
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });

  let remaining = streams.length;
  const finishOne = () => {
    if (--remaining === 0) {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      queue.end();
      opts.observer?.done(null);
    }
  };
  const sink = opts.observer ? observed(queue, opts.observer) : queue;
  streams.forEach((s, i) => {
    const choice = opts.choices[i];
    runChoice(s, choice, opts, sink).then(
      () => {
        live.delete(s.requestId);
        finishOne();
      },
      (err: unknown) => {
        live.delete(s.requestId);
        clearTimeout(timer);
        abortAll();
        queue.fail(err);
        opts.observer?.done(err);
      },
    );
  });
  return queue;
}

function toEngineRequest(c: ChoiceSpec, stream: boolean): EngineRequest {
  return {
    requestId: c.wireId,
    promptTokenIds: c.promptTokenIds,
    sampling: c.sampling,
    arrivalTime: Date.now() / 1000,
    cacheSalt: null,
    dataParallelRank: null,
    priority: 0,
    stream,
  };
}

async function runChoice(
  stream: RequestStream,
  choice: ChoiceSpec,
  opts: GenerateOptions,
  out: EventSink,
): Promise<void> {
  const { rules } = opts;
  const decoder = new StopDecoder(opts.tokenizer, {
    skipSpecialTokens: rules.skipSpecialTokens,
    stopStrings: rules.stopStrings,
    stopTokenIds: rules.stopTokenIds,
    noStopTrim: rules.keepStop,
    tokenStopStrings: rules.tokenStopStrings,
    promptIds: choice.promptTokenIds,
  });
  const index = choice.index;
  const output = new ChoiceOutput(index, opts.output ?? null, opts.stream, out);
  let completionTokens = 0;
  let promptTokens = choice.promptTokenIds.length;
  let cachedTokens = 0;
  let pending: TokenLogprob[] | null = null;

  for await (const chunk of stream) {
    completionTokens += chunk.newTokenIds.length;
    if (chunk.promptTokens) promptTokens = chunk.promptTokens;
    if (chunk.cachedTokens) cachedTokens = Math.max(cachedTokens, chunk.cachedTokens);
    if (chunk.logprobs) pending = pending ? pending.concat(chunk.logprobs) : chunk.logprobs;
    if (chunk.finish === 'error') throw new EngineError('engine_error', chunk.errorMessage ?? ENGINE_ERROR_FINISH);
    if (chunk.finish === 'abort' && chunk.errorMessage && completionTokens === 0) {
      // An abort we did not ask for, before any token: the engine refused the request.
      throw new EngineError('invalid', `engine rejected the request: ${chunk.errorMessage}`);
    }

    if (opts.tokenIds && chunk.newTokenIds.length > 0) out.push({ kind: 'tokens', index, ids: chunk.newTokenIds });
    const r = decoder.push(visibleIds(chunk, rules.keepStop));
    if (r.text && output.push(r.text, pending)) pending = null;
    if (output.matchedStop !== null) {
      if (chunk.finish === null) opts.client.abort(stream.requestId);
      end('stop', output.matchedStop);
      return;
    }
    if (r.stopped) {
      if (chunk.finish === null) opts.client.abort(stream.requestId);
      end('stop', r.matchedStop ?? engineStop(chunk, rules));
      return;
    }
    if (chunk.finish !== null) {
      const tail = decoder.finish();
      if (tail.text && output.push(tail.text, pending)) pending = null;
      const reason: FinishKind = tail.stopped || chunk.finish === 'repetition' ? 'stop' : chunk.finish;
      end(reason, tail.matchedStop ?? engineStop(chunk, rules));
      return;
    }
  }
  // The stream ended without a terminal output: the request was aborted (client gone).
  end('abort', null);

  function end(reason: FinishKind, matchedStop: string | number | null): void {
    const finishReason = output.finish(reason);
    out.push({ kind: 'end', index, finishReason, matchedStop, promptTokens, completionTokens, cachedTokens, logprobs: pending });
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
