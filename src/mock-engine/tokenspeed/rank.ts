/**
 * One simulated TokenSpeed attention-DP rank: its input DEALER, the shared scheduler simulation and
 * its output PUSH. TokenSpeed's reactions differ from vLLM's on every edge (wire-tokenspeed §4.8,
 * §5, Errata 1): bad input is dropped and the rank keeps serving, an invalid request gets one
 * terminal `abort` row, an ABORT is never answered, and an unknown aborted rid poisons a later
 * ADD with that rid for 300 s.
 */
import type { Dealer, Push } from 'zeromq';
import { ABORTED_RID_MEMORY_MS, type BatchArity } from '../../engine/dialects/tokenspeed/index.js';
import {
  admissionAbortRow,
  admitTokenSpeedRequest,
  decodeTokenSpeedInput,
  encodeTokenSpeedBatch,
  type TsAddRequest,
  type TsAdmissionConfig,
  type TsLoadSnapshot,
  type TsOutputRow,
} from '../wire/tokenspeed/index.js';
import type { Logger } from '../../util/logger.js';
import type { FaultTrigger } from '../faults.js';
import { FINISH, type MockRequest } from '../request.js';
import type { RankScheduler } from '../scheduler.js';
import type { Signal } from '../signal.js';
import { SendQueue } from '../sockets.js';
import type { RankLoad } from '../rank-load.js';
import { addTokens, effectiveMax, rowDue, StreamIntervalZero, takeRow, wireFinish, type TsTrack } from './track.js';

export interface TsRankConfig {
  admission: TsAdmissionConfig;
  /** The engine's own EOS set (§8); the first id ends scripted replies. */
  eosIds: number[];
  maxModelLen: number;
  streamInterval: number;
  arity: BatchArity;
  kvPages: number;
  /** Tokens per KV page (the scheduler's block size). */
  pageSize: number;
}

export interface TsRankHost {
  readonly logger: Logger;
  readonly faults: FaultTrigger;
  readonly work: Signal;
  readonly logRequests: boolean;
  /** `silent` fault: nothing leaves any rank any more. */
  readonly silent: boolean;
  readonly stopped: boolean;
  /** A crash in the scheduler loop: sentinel from every rank, exit 1. */
  crash(reason: string): void;
}

/** Requests this step finished: still in the snapshot, which the engine samples before release. */
interface Finishing {
  requests: number;
  pages: number;
}

export class TsRank {
  private readonly tracks = new Map<string, TsTrack>();
  /** Rids aborted before they were known → when the memory of them expires. */
  private readonly abortedUnknown = new Map<string, number>();
  private readonly out: SendQueue;
  private readonly log: Logger;
  private inputOpen = true;
  /** `--mock-rank-load` for this engine: added to its load snapshot. */
  extraLoad: RankLoad | null = null;

  constructor(
    readonly engineIndex: number,
    private readonly input: Dealer,
    private readonly output: Push,
    readonly sched: RankScheduler,
    private readonly cfg: TsRankConfig,
    private readonly host: TsRankHost,
  ) {
    this.log = host.logger.child({ engine: engineIndex });
    this.out = new SendQueue(output, (err) => this.log.warn(`output send failed: ${err.message}`));
  }

  get inFlight(): number {
    return this.tracks.size;
  }

  /** Drains the input DEALER until it closes. Real TokenSpeed polls it once per iteration. */
  async readInput(): Promise<void> {
    while (this.inputOpen) {
      let frames: Buffer[];
      try {
        frames = await this.input.receive();
      } catch (err) {
        if (this.inputOpen) this.log.warn(`input socket failed: ${(err as Error).message}`);
        return;
      }
      if (this.host.stopped) return;
      this.handle(frames);
    }
  }

  private handle(frames: Buffer[]): void {
    const msg = decodeTokenSpeedInput(frames);
    switch (msg.kind) {
      case 'drop':
        // Errata 1: logged and dropped; the rank keeps serving and the sender hears nothing.
        this.log.warn(msg.reason);
        return;
      case 'abort':
        this.abort(msg.rids);
        return;
      case 'add':
        this.add(msg.request);
        return;
    }
  }

  private add(req: TsAddRequest): void {
    const now = Date.now();
    const poisoned = this.abortedUnknown.get(req.rid);
    if (poisoned !== undefined) this.abortedUnknown.delete(req.rid);
    if (poisoned !== undefined && poisoned > now) {
      this.reqLog(`request ${req.rid} was aborted before it arrived; dropped silently`);
      return;
    }
    if (this.tracks.has(req.rid)) {
      // Not validated by the engine (§4.8); dropping it is the least confusing undefined outcome.
      this.log.warn(`duplicate in-flight rid ${req.rid}; ADD dropped`);
      return;
    }
    this.reqLog(`request added: ${req.rid} ${JSON.stringify(requestSummary(req))}`);
    const refusal = admitTokenSpeedRequest(req, this.cfg.admission) ?? this.localRefusal(req);
    if (refusal !== null) {
      this.reqLog(`request aborted at admission: ${req.rid}: ${refusal}`);
      this.sendRows([admissionAbortRow(req)]);
      return;
    }
    const prompt = req.inputIds as number[];
    const sp = req.sampling;
    const track: TsTrack = {
      rid: req.rid,
      stream: req.stream,
      interval: sp.streamInterval ?? this.cfg.streamInterval,
      effectiveMax: effectiveMax(sp.maxNewTokens, this.cfg.maxModelLen, prompt.length),
      promptTokens: prompt.length,
      returnLogprob: req.returnLogprob,
      completion: 0,
      pendingIds: [],
      pendingLogprobs: [],
    };
    const mock = toMockRequest(req, prompt, track.effectiveMax, this.cfg.eosIds);
    if (this.sched.cannotFit(mock)) {
      // The engine does not check prompt length (§4.7); ending loudly beats hanging quietly.
      this.log.warn(`request ${req.rid}: prompt of ${prompt.length} tokens cannot be served; aborted`);
      this.sendRows([admissionAbortRow(req)]);
      return;
    }
    this.tracks.set(req.rid, track);
    this.sched.add(mock, performance.now() / 1000);
    this.host.faults.onAdd(this.engineIndex, req.rid);
    this.host.work.notify();
  }

  /** Checks the shared admission table leaves to the engine's own input handling. */
  private localRefusal(req: TsAddRequest): string | null {
    if (req.inputIds === null || req.inputIds.length === 0) return 'input_ids is empty (text input is not supported headless)';
    if (req.sampling.stopStrs !== null && req.sampling.stopStrs.length > 0) {
      this.log.warn(`request ${req.rid}: stop strings are not simulated by the mock (the gateway never sends them)`);
    }
    return null;
  }

  private abort(rids: string[]): void {
    const gone = this.sched.remove(rids).map((r) => r.id);
    const now = Date.now();
    // Expired memories are dropped lazily, so a long run of late aborts cannot grow the map forever.
    if (this.abortedUnknown.size > 1024) {
      for (const [rid, until] of this.abortedUnknown) if (until <= now) this.abortedUnknown.delete(rid);
    }
    for (const rid of rids) {
      if (this.tracks.delete(rid)) continue;
      // Not arrived yet, or already finished: a later ADD with this rid is silently killed (§5).
      this.abortedUnknown.set(rid, now + ABORTED_RID_MEMORY_MS);
    }
    this.reqLog(`abort: ${rids.join(', ')} (${gone.length} in flight; no reply)`);
    this.host.work.notify();
  }

  /** One scheduler iteration: one batch with every row due on this rank, or nothing. */
  step(now: number): void {
    const res = this.sched.step(now);
    const rows: TsOutputRow[] = [];
    let tokens = 0;
    for (const o of res.outputs) {
      const t = this.tracks.get(o.requestId);
      if (!t) continue;
      tokens += o.newTokenIds.length;
      addTokens(t, o.newTokenIds, o.logprobs?.map((l) => l.logprob) ?? null);
      const terminal = o.finishReason !== null;
      try {
        if (!rowDue(t, terminal)) continue;
      } catch (err) {
        if (!(err instanceof StreamIntervalZero)) throw err;
        this.host.crash(`${err.name}: ${err.message} while scheduling ${t.rid}`);
        return;
      }
      const finish = terminal ? wireFinish(t, o.finishReason === FINISH.LENGTH) : '';
      rows.push(takeRow(t, finish));
      if (terminal) {
        this.tracks.delete(t.rid);
        this.reqLog(`request finished: ${t.rid} reason=${finish} tokens=${t.completion}`);
      }
    }
    // The snapshot is taken before this step's finishes are released, as the engine's is.
    // A rank with extra load has rows for other clients; a row-less batch stands in for them.
    if (rows.length > 0 || this.extraLoad) {
      const pages = res.finished.reduce((n, f) => n + Math.ceil((f.req.prompt.length + f.req.output.length) / this.cfg.pageSize), 0);
      this.sendRows(rows, { requests: res.finished.length, pages });
    }
    this.host.faults.onTokens(this.engineIndex, tokens);
  }

  private load(finishing: Finishing): TsLoadSnapshot {
    const x = this.extraLoad ?? { running: 0, waiting: 0, kv: 0 };
    return {
      numRunning: this.sched.numRunning + this.sched.numWaiting + finishing.requests + x.running + x.waiting,
      numWaiting: this.sched.numWaiting + x.waiting,
      kvActivePages: Math.min(this.cfg.kvPages, Math.round((this.sched.kvUsage + x.kv) * this.cfg.kvPages) + finishing.pages),
      kvTotalPages: this.cfg.kvPages,
    };
  }

  private sendRows(rows: TsOutputRow[], finishing: Finishing = { requests: 0, pages: 0 }): void {
    if (this.host.silent) return;
    const batch = { rows, engineIndex: this.engineIndex, load: this.load(finishing) };
    void this.out.send(encodeTokenSpeedBatch(batch, this.cfg.arity));
  }

  /** Death notices and injected garbage bypass the silent gate. */
  sendRaw(frames: Buffer[]): Promise<void> {
    return this.out.send(frames);
  }

  flush(): Promise<void> {
    return this.out.flush();
  }

  closeSockets(): void {
    if (this.inputOpen) {
      this.inputOpen = false;
      this.input.close();
    }
    this.out.close();
    this.output.close();
  }

  private reqLog(line: string): void {
    if (this.host.logRequests) this.log.info(line);
    else this.log.debug(line);
  }
}

/**
 * The shared scheduler speaks vLLM's request shape; this maps TokenSpeed's semantics onto it:
 * the engine's own EOS set joins the stop ids, `ignore_eos` disables both (§8), min_new_tokens is
 * not enforced, and a greedy request (top_k 1 after normalization) or a derived seed does not
 * shift the scripted tokens, so replies stay predictable for tests.
 */
function toMockRequest(req: TsAddRequest, prompt: number[], maxTokens: number, eosIds: number[]): MockRequest {
  const sp = req.sampling;
  const stops = sp.ignoreEos ? [] : [...new Set([...(sp.stopTokenIds ?? []), ...eosIds])];
  return {
    id: req.rid,
    prompt,
    sampling: {
      maxTokens,
      minTokens: 0,
      stopTokenIds: stops,
      eosTokenId: sp.ignoreEos || eosIds.length === 0 ? null : eosIds[0],
      ignoreEos: sp.ignoreEos,
      logprobs: req.returnLogprob ? 0 : null,
      promptLogprobs: null,
      seed: req.seedDerived ? null : sp.seed,
      temperature: sp.topK === 1 ? 0 : sp.temperature,
    },
  };
}

/** What tests look for in the request log: the slots the gateway decided. */
function requestSummary(req: TsAddRequest): Record<string, unknown> {
  const sp = req.sampling;
  const out: Record<string, unknown> = {
    prompt: req.inputIds?.length ?? 0,
    max_new_tokens: sp.maxNewTokens,
    stream: req.stream,
    return_logprob: req.returnLogprob,
    temperature: sp.temperature,
    top_k: sp.topK,
    seed: req.seedDerived ? null : sp.seed,
    ignore_eos: sp.ignoreEos,
    stop_token_ids: sp.stopTokenIds,
    wire_length: req.wireLength,
  };
  for (const [k, v] of [
    ['json_schema', sp.jsonSchema],
    ['regex', sp.regex],
    ['ebnf', sp.ebnf],
    ['structural_tag', sp.structuralTag],
  ] as const) {
    if (v !== null) out[k] = v;
  }
  return out;
}
