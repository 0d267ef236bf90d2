/**
 * The engine part of a request's trace, fed by the generation's observer calls:
 * - `queue`: submit → the engine scheduled the request (vLLM's own QUEUED→SCHEDULED interval from
 *   its scheduler events); without events (TokenSpeed) submit → the first engine output;
 * - `first_token`: submit → the first generated token;
 * - `stream`: first token → the response's last byte.
 * The request span gets vLLM's `gen_ai.*` attributes (vllm/tracing.py SpanAttributes).
 */
import type { Span } from '@opentelemetry/api';
import { type RequestTrace, endSpan } from './request-trace.js';

export interface GenerationFacts {
  model: string;
  requestId: string;
  n: number;
  maxTokens: number;
  temperature: number;
  topP: number;
  priority: number;
  worker: string;
}

/** Has the shape of the pipeline's GenerationObserver (tracing sits below the pipeline). */
export class GenerationTrace {
  /** performance.now() ms at the engine submit (span times are given on that clock). */
  private readonly startPerf = performance.now();
  private queueDone = false;
  private firstTokenAt = 0;
  private stream: Span | null = null;
  private promptTokens = 0;
  private completionTokens = 0;
  private readonly finishReasons: string[] = [];
  private ended = false;
  private readonly arrivedPerf: number;

  constructor(
    private readonly t: RequestTrace,
    facts: GenerationFacts,
  ) {
    t.hold();
    this.arrivedPerf = t.startedPerf;
    t.set({
      'gen_ai.request.id': facts.requestId,
      'gen_ai.response.model': facts.model,
      'gen_ai.request.n': facts.n,
      'gen_ai.request.max_tokens': facts.maxTokens,
      'gen_ai.request.temperature': facts.temperature,
      'gen_ai.request.top_p': facts.topP,
      'smg.request.priority': facts.priority,
      'smg.worker': facts.worker,
    });
  }

  firstText(): void {}

  /**
   * Every choice's engine outputs come to step() (the pipeline's per-choice meter): the trace
   * marks the request's first queue end and first token.
   */
  choiceStarted(index: number, rank: number): this {
    if (index === 0) this.t.set({ 'smg.engine.rank': rank });
    return this;
  }

  step(newTokens: number, queuedSecs: number | undefined): void {
    if (!this.queueDone && (queuedSecs !== undefined || newTokens > 0)) {
      this.queueDone = true;
      // The engine's own queue interval, laid from the submit time (the two clocks differ).
      const now = performance.now();
      const seconds = queuedSecs ?? (now - this.startPerf) / 1000;
      endSpan(this.t.child('queue', this.startPerf), Math.min(now, this.startPerf + seconds * 1000));
      this.t.set({ 'gen_ai.latency.time_in_queue': seconds });
    }
    if (newTokens > 0 && this.firstTokenAt === 0) {
      this.firstTokenAt = performance.now();
      const ttft = (this.firstTokenAt - this.startPerf) / 1000;
      endSpan(this.t.child('first_token', this.startPerf), this.firstTokenAt);
      this.t.set({ 'gen_ai.latency.time_to_first_token': ttft });
      this.stream = this.t.child('stream', this.firstTokenAt);
    }
  }

  choiceEnded(promptTokens: number, completionTokens: number, _index: number, finishReason: string): void {
    this.promptTokens += promptTokens;
    this.completionTokens += completionTokens;
    this.finishReasons.push(finishReason);
  }

  done(error: unknown): void {
    if (error !== null && error !== undefined) this.t.fail(error instanceof Error ? error.message : String(error));
  }

  /** Submission failed: nothing streams; the request span is left to the route (it knows the status). */
  notStarted(error: unknown): void {
    this.ended = true;
    this.t.fail(error instanceof Error ? error.message : String(error));
    this.t.release();
  }

  /** The response is complete (last byte written) or abandoned: close the stream and the request. */
  responseDone(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.stream) endSpan(this.stream);
    this.t.set({
      'gen_ai.usage.prompt_tokens': this.promptTokens,
      'gen_ai.usage.completion_tokens': this.completionTokens,
      'gen_ai.usage.num_sequences': this.finishReasons.length,
      'gen_ai.response.finish_reasons': this.finishReasons,
      // From the request's arrival, as vLLM's e2e (TTFT above counts from the engine submit).
      'gen_ai.latency.e2e': (performance.now() - this.arrivedPerf) / 1000,
    });
    this.t.release();
  }
}
