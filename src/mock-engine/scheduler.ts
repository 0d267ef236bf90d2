/**
 * One rank's continuous-batching scheduler, simulated: a FCFS waiting queue, a running batch capped
 * by max_num_seqs, a per-step token budget (chunked prefill) and a KV cache of fixed blocks with
 * vLLM-style preemption of the newest request when a decode needs a block that is not free. It
 * exists so the load numbers in scheduler_stats are the mock's own, not invented.
 */
import type { Generator } from './generator.js';
import type { WirePrefillStats } from './wire/vllm/index.js';
import type { TokenLogprob } from '../engine/types.js';
import { effectiveK, promptLogprobs, sampleLogprobs } from './logprobs.js';
import { checkStop, FINISH, toLive, type LiveRequest, type MockRequest } from './request.js';

export interface SchedulerConfig {
  maxModelLen: number;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  blockSize: number;
  numGpuBlocks: number;
  /** Stats logging on (vLLM default): events + prefill_stats on outputs, scheduler_stats per step. */
  logStats: boolean;
  /**
   * Simulate vLLM's prefix cache (`--enable-prefix-caching`): a prompt's leading full blocks seen
   * before are hits. Off unless asked, although vLLM v1 caches by default, so that tests which
   * send one prompt twice keep seeing cached_tokens 0.
   */
  prefixCaching?: boolean;
  /**
   * vLLM's `--scheduling-policy priority`: the waiting queue is ordered by (priority, arrival),
   * lower first (vllm/v1/core/sched/request_queue.py). Without it FCFS ignores priority.
   */
  priorityScheduling?: boolean;
}

export type PrefillStats = WirePrefillStats;

/** Shaped as the codec's WireOutput, so an envelope's outputs are encoded without a copy. */
export interface OutItem {
  requestId: string;
  newTokenIds: number[];
  /** Sample logprobs for exactly newTokenIds. */
  logprobs: TokenLogprob[] | null;
  promptLogprobs: TokenLogprob[] | null;
  finishReason: number | null;
  stopReason: number | null;
  events: { type: number; timestamp: number }[] | null;
  prefillStats: PrefillStats | null;
}

export interface StepResult {
  outputs: OutItem[];
  finished: { req: LiveRequest; finish: number }[];
  /** Per-step prefix-cache counters for scheduler_stats. */
  prefixRequests: number;
  prefixQueries: number;
  prefixHits: number;
}

interface Running extends LiveRequest {
  prefillTarget: number;
  /** Prompt tokens the simulated prefix cache held at the first scheduling. */
  cachedTokens?: number;
}

/** Bounded: the simulated cache forgets everything past this many blocks (no LRU needed for tests). */
const MAX_CACHED_BLOCKS = 100_000;

export class RankScheduler {
  private waiting: Running[] = [];
  private running: Running[] = [];
  private usedBlocks = 0;
  private readonly cachedBlocks = new Set<number>();

  constructor(
    private readonly cfg: SchedulerConfig,
    private readonly gen: Generator,
  ) {}

  get numRunning(): number {
    return this.running.length;
  }
  get numWaiting(): number {
    return this.waiting.length;
  }
  get hasWork(): boolean {
    return this.running.length + this.waiting.length > 0;
  }
  get kvUsage(): number {
    return this.usedBlocks / this.cfg.numGpuBlocks;
  }
  has(id: string): boolean {
    return this.running.some((r) => r.id === id) || this.waiting.some((r) => r.id === id);
  }
  ids(): string[] {
    return [...this.running, ...this.waiting].map((r) => r.id);
  }

  add(req: MockRequest, now: number): void {
    const live: Running = { ...toLive(req, now), prefillTarget: req.prompt.length };
    if (!this.cfg.priorityScheduling) {
      this.waiting.push(live);
      return;
    }
    // After every waiting request of the same or a lower value: arrival breaks ties.
    const p = req.priority ?? 0;
    const at = this.waiting.findIndex((w) => (w.priority ?? 0) > p);
    if (at === -1) this.waiting.push(live);
    else this.waiting.splice(at, 0, live);
  }

  /** Removes the ids that are live; unknown ids are no-ops, like vLLM. */
  remove(ids: Iterable<string>): LiveRequest[] {
    const gone: LiveRequest[] = [];
    for (const id of ids) {
      for (const list of [this.running, this.waiting]) {
        const i = list.findIndex((r) => r.id === id);
        if (i < 0) continue;
        const [r] = list.splice(i, 1);
        this.free(r);
        gone.push(r);
      }
    }
    return gone;
  }

  removeAll(): LiveRequest[] {
    return this.remove(this.ids());
  }

  /** True when the prompt can never be served (a real frontend would have rejected it). */
  cannotFit(req: MockRequest): boolean {
    return req.prompt.length >= this.cfg.maxModelLen || this.blocksFor(req.prompt.length + 1) > this.cfg.numGpuBlocks;
  }

  step(now: number): StepResult {
    const res: StepResult = { outputs: [], finished: [], prefixRequests: 0, prefixQueries: 0, prefixHits: 0 };
    let budget = this.cfg.maxNumBatchedTokens;
    const sampling: Running[] = [];
    // Running requests first (decodes and unfinished prefill chunks), as vLLM's scheduler does.
    // Preemption only ever removes the newest (last) running request, so indexing the live list
    // visits exactly the requests still running.
    for (let i = 0; i < this.running.length; i++) {
      const r = this.running[i];
      if (budget <= 0) break;
      if (r.computed < r.prefillTarget) {
        budget -= this.prefillChunk(r, budget, sampling);
        continue;
      }
      if (!this.reserve(r, r.prompt.length + r.output.length + 1, now)) continue;
      budget -= 1;
      sampling.push(r);
    }
    while (this.waiting.length > 0 && this.running.length < this.cfg.maxNumSeqs && budget > 0) {
      const r = this.waiting[0];
      if (this.blocksFor(r.prefillTarget + 1) - r.blocks > this.cfg.numGpuBlocks - this.usedBlocks) break;
      this.waiting.shift();
      this.running.push(r);
      this.take(r, this.blocksFor(r.prefillTarget + 1) - r.blocks);
      r.pendingEvents.push({ type: 2, timestamp: now });
      r.needsPrefillStats = true;
      res.prefixRequests += 1;
      res.prefixQueries += r.prefillTarget;
      if (this.cfg.prefixCaching && r.output.length === 0) {
        r.cachedTokens = this.lookupPrefix(r.prompt);
        res.prefixHits += r.cachedTokens;
      }
      budget -= this.prefillChunk(r, budget, sampling);
    }
    for (const r of sampling) this.sample(r, res);
    return res;
  }

  private prefillChunk(r: Running, budget: number, sampling: Running[]): number {
    const chunk = Math.min(r.prefillTarget - r.computed, budget);
    r.computed += chunk;
    // The step that computes the last prompt chunk also samples the first token.
    if (r.computed >= r.prefillTarget) sampling.push(r);
    return chunk;
  }

  private sample(r: Running, res: StepResult): void {
    const pos = r.output.length;
    const token = this.gen.tokenAt(r, pos);
    r.output.push(token);
    r.computed = r.prompt.length + r.output.length;
    r.prefillTarget = r.computed;
    const stop = checkStop(r, this.cfg.maxModelLen);
    const s = r.sampling;
    const item: OutItem = {
      requestId: r.id,
      newTokenIds: [token],
      logprobs: s.logprobs === null ? null : sampleLogprobs([token], pos, effectiveK(s.logprobs)),
      promptLogprobs: null,
      finishReason: stop ? stop.finish : null,
      stopReason: stop ? stop.stopReason : null,
      events: null,
      prefillStats: null,
    };
    if (s.promptLogprobs !== null && !r.promptLogprobsSent) {
      item.promptLogprobs = promptLogprobs(r.prompt, effectiveK(s.promptLogprobs));
      r.promptLogprobsSent = true;
    }
    if (this.cfg.logStats) {
      if (r.pendingEvents.length > 0) item.events = r.pendingEvents;
      if (r.needsPrefillStats) item.prefillStats = prefillStats(r.prompt.length, r.cachedTokens ?? 0);
    }
    r.pendingEvents = [];
    r.needsPrefillStats = false;
    res.outputs.push(item);
    if (stop) {
      this.remove([r.id]);
      res.finished.push({ req: r, finish: stop.finish });
    }
  }

  /** Grows r to `tokens` worth of blocks, preempting the newest running requests if needed. */
  private reserve(r: Running, tokens: number, now: number): boolean {
    const need = this.blocksFor(tokens) - r.blocks;
    while (need > this.cfg.numGpuBlocks - this.usedBlocks) {
      const victim = this.running[this.running.length - 1];
      this.preempt(victim, now);
      if (victim === r) return false;
    }
    this.take(r, need);
    return true;
  }

  private preempt(r: Running, now: number): void {
    this.running.splice(this.running.indexOf(r), 1);
    this.free(r);
    // Recompute-style preemption: prompt and output are prefilled again when it is rescheduled.
    r.computed = 0;
    r.prefillTarget = r.prompt.length + r.output.length;
    r.pendingEvents.push({ type: 3, timestamp: now });
    this.waiting.unshift(r);
  }

  /**
   * Leading full blocks of `prompt` already cached, in tokens (vLLM never serves the last prompt
   * token from cache: at least one is computed); every full block is then cached. Block keys chain
   * a rolling hash, so a block only matches after the same prefix.
   */
  private lookupPrefix(prompt: readonly number[]): number {
    const bs = this.cfg.blockSize;
    let h = 2166136261;
    let hits = 0;
    let matching = true;
    for (let b = 0; (b + 1) * bs <= prompt.length; b++) {
      for (let i = b * bs; i < (b + 1) * bs; i++) h = Math.imul(h ^ prompt[i], 16777619) >>> 0;
      // A number, not a `${b}:${h}` string: building and hashing 8,192 strings for a 131k-token
      // prompt held the mock's loop 4-10 ms per ADD, delaying every stream's next step.
      const key = b * 0x1_0000_0000 + h;
      if (matching && this.cachedBlocks.has(key)) hits += bs;
      else matching = false;
      if (this.cachedBlocks.size >= MAX_CACHED_BLOCKS) this.cachedBlocks.clear();
      this.cachedBlocks.add(key);
    }
    return Math.min(hits, Math.max(0, prompt.length - 1));
  }

  private blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.cfg.blockSize);
  }
  private take(r: LiveRequest, n: number): void {
    if (n <= 0) return;
    r.blocks += n;
    this.usedBlocks += n;
  }
  private free(r: LiveRequest): void {
    this.usedBlocks -= r.blocks;
    r.blocks = 0;
  }
}

/** `cached` prompt tokens came from the (simulated) prefix cache; the rest were computed. */
export function prefillStats(promptLen: number, cached = 0): PrefillStats {
  return {
    numPromptTokens: promptLen,
    numComputedTokens: promptLen - cached,
    numCachedTokens: cached,
    numLocalCachedTokens: cached,
    numExternalCachedTokens: 0,
    numCacheCreationTokens: promptLen - cached,
  };
}

export { FINISH };
