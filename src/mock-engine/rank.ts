/**
 * One simulated EngineCoreProc (one data-parallel rank): its input thread, its scheduler and its
 * output socket. Reactions to bad input follow wire-vllm §3.9: a request the real engine cannot
 * decode kills only the input thread (Errata 1); a duplicate id or 0x04 kills the engine.
 */
import type { Dealer, Push } from 'zeromq';
import type { Logger } from '../util/logger.js';
import type { FaultTrigger } from './faults.js';
import { FINISH, type MockRequest } from './request.js';
import type { OutItem, RankScheduler, StepResult } from './scheduler.js';
import type { Signal } from './signal.js';
import { SendQueue } from './sockets.js';
import { callUtility } from './utility.js';
import { withExtraLoad, type RankLoad } from './rank-load.js';
import { emptyEnvelope, InputRejected, monotonicSeconds, type Envelope, type InputMessage } from './wire/seam.js';

export interface RankCodec {
  decodeInput(frames: Buffer[]): InputMessage;
  encodeEnvelope(env: Envelope): Buffer[];
}

/** What a rank needs from the process around it. */
export interface RankHost {
  readonly logger: Logger;
  readonly codec: RankCodec;
  readonly faults: FaultTrigger;
  readonly work: Signal;
  readonly lockstep: boolean;
  readonly logStats: boolean;
  readonly abortReply: boolean;
  readonly logRequests: boolean;
  /** After SIGTERM: new ADDs are answered with an ABORT output. */
  readonly shuttingDown: boolean;
  /** `silent` fault: nothing leaves any rank any more. */
  readonly silent: boolean;
  /** `stall-input` fault: resolves never; input loops park on it. */
  readonly inputStall: Promise<void> | null;
  fatal(reason: string): void;
}

export class MockRank {
  /** MoE lockstep state (wire-vllm §3.6); unused by dense ranks. */
  wave = 0;
  awake = false;
  /** `--mock-rank-load` for this rank: reported on top of its own queue. */
  extraLoad: RankLoad | null = null;
  private inputOpen = true;
  private readonly out: SendQueue;
  private readonly log: Logger;

  constructor(
    readonly rank: number,
    private readonly input: Dealer,
    private readonly output: Push,
    readonly sched: RankScheduler,
    private readonly host: RankHost,
  ) {
    this.log = host.logger.child({ rank });
    this.out = new SendQueue(output, (err) => this.log.warn(`output send failed: ${err.message}`));
  }

  /** The input thread: reads until the socket closes or a bad message kills it. */
  async readInput(): Promise<void> {
    while (this.inputOpen) {
      if (this.host.inputStall) await this.host.inputStall;
      let frames: Buffer[];
      try {
        frames = await this.input.receive();
      } catch (err) {
        if (this.inputOpen) this.log.warn(`input socket failed: ${(err as Error).message}`);
        return;
      }
      // A receive already pending when the stall fired must not sneak one more message through.
      if (this.host.inputStall) await this.host.inputStall;
      this.handle(frames);
    }
  }

  private handle(frames: Buffer[]): void {
    let msg: InputMessage;
    try {
      msg = this.host.codec.decodeInput(frames);
    } catch (err) {
      const reason = (err as Error).message;
      if (err instanceof InputRejected && err.fatal) {
        this.host.fatal(reason);
        return;
      }
      this.killInputThread(reason);
      return;
    }
    switch (msg.kind) {
      case 'add':
        return this.add(msg.request);
      case 'abort':
        return this.abort(msg.ids);
      case 'start_wave':
        return this.startWave(msg.wave, msg.exclude);
      case 'utility': {
        // The gateway's half-dead probe asks get_supported_tasks; tests read this line.
        this.reqLog(`utility: ${msg.method} call_id=${msg.callId}`);
        const r = callUtility(msg.method, msg.args);
        const env = emptyEnvelope(this.rank, monotonicSeconds());
        env.utility = { callId: msg.callId, failure: r.failure, result: r.result };
        this.send(env);
        return;
      }
      case 'ignored':
        this.log.warn(`input ignored: ${msg.reason}`);
        return;
    }
  }

  /** What vLLM's input thread does on an exception: it dies, and nobody is told. */
  private killInputThread(reason: string): void {
    this.log.error(
      `input thread died: ${reason} — this rank reads no more requests; admitted requests still finish (real vLLM behaviour)`,
    );
    this.closeInput();
  }

  closeInput(): void {
    if (!this.inputOpen) return;
    this.inputOpen = false;
    this.input.close();
  }

  private add(req: MockRequest): void {
    const now = monotonicSeconds();
    if (this.host.shuttingDown) {
      this.sendFinished([req.id], FINISH.ABORT, true);
      return;
    }
    if (this.sched.has(req.id)) {
      this.host.fatal(`duplicate request id ${req.id} (still in flight on rank ${this.rank})`);
      return;
    }
    const so = req.structured === undefined ? '' : ` structured_outputs=${req.structured}`;
    this.reqLog(`request added: ${req.id} prompt=${req.prompt.length} max_tokens=${req.sampling.maxTokens} priority=${req.priority ?? 0}${so}`);
    if (this.sched.cannotFit(req)) {
      // Undefined in vLLM (its frontend never sends this); finishing loudly beats hanging quietly.
      this.log.warn(`request ${req.id}: prompt of ${req.prompt.length} tokens cannot be served; finished as length`);
      this.sendFinished([req.id], FINISH.LENGTH, false);
      return;
    }
    this.sched.add(req, now);
    this.host.faults.onAdd(this.rank, req.id);
    this.host.work.notify();
  }

  private abort(ids: string[]): void {
    const gone = this.sched.remove(ids);
    this.reqLog(`abort: ${ids.join(', ')} (${gone.length} in flight)`);
    if (this.host.abortReply && gone.length > 0) {
      this.sendFinished(
        gone.map((r) => r.id),
        FINISH.ABORT,
        true,
      );
    }
    this.host.work.notify();
  }

  private startWave(wave: number, exclude: number | null): void {
    if (!this.host.lockstep) {
      this.log.warn(`Unrecognized input request type START_DP_WAVE (wave ${wave}) on a dense rank; ignored`);
      return;
    }
    if (exclude === this.rank || wave < this.wave) {
      this.log.debug(`START_DP_WAVE ${wave} ignored (current wave ${this.wave}, exclude ${exclude})`);
      return;
    }
    this.wave = wave;
    if (!this.awake) this.log.debug(`starting idle loop for wave ${wave}`);
    this.awake = true;
    this.host.work.notify();
  }

  /** One engine step: the batch, its outputs and a stats snapshot in one envelope. */
  step(now: number, stepCounter: number): void {
    const res = this.sched.step(now);
    const env = emptyEnvelope(this.rank, now);
    env.outputs = res.outputs;
    if (this.host.logStats) env.stats = this.statsView(res, stepCounter);
    if (env.outputs.length > 0 || env.stats !== null) this.send(env);
    for (const f of res.finished) {
      this.reqLog(`request finished: ${f.req.id} reason=${finishName(f.finish)} tokens=${f.req.output.length}`);
    }
    this.host.faults.onTokens(this.rank, countTokens(res.outputs));
  }

  private statsView(res: StepResult, stepCounter: number): Envelope['stats'] {
    return withExtraLoad(
      {
        numRunning: this.sched.numRunning,
        numWaiting: this.sched.numWaiting,
        stepCounter: this.host.lockstep ? stepCounter : 0,
        currentWave: this.host.lockstep ? this.wave : 0,
        kvCacheUsage: this.sched.kvUsage,
        prefixRequests: res.prefixRequests,
        prefixQueries: res.prefixQueries,
        prefixHits: res.prefixHits,
      },
      this.extraLoad,
    );
  }

  sendWaveComplete(): void {
    const env = emptyEnvelope(this.rank, monotonicSeconds());
    env.waveComplete = this.wave;
    this.send(env);
  }

  /** SIGTERM with shutdown_timeout 0: every in-flight request ends as ABORT, named in finished_requests. */
  abortAllForShutdown(): number {
    const gone = this.sched.removeAll();
    if (gone.length > 0) {
      this.sendFinished(
        gone.map((r) => r.id),
        FINISH.ABORT,
        true,
      );
    }
    return gone.length;
  }

  /** Engine-initiated finishes carry finished_requests (wire-vllm §5.2); others leave it nil. */
  private sendFinished(ids: string[], finish: number, listFinished: boolean): void {
    const env = emptyEnvelope(this.rank, monotonicSeconds());
    env.outputs = ids.map((id) => terminalOutput(id, finish));
    if (listFinished) env.finishedRequests = ids;
    this.send(env);
  }

  send(env: Envelope): void {
    if (this.host.silent) return;
    void this.out.send(this.host.codec.encodeEnvelope(env));
  }

  /** Bypasses the silent gate: death notices and injected garbage. */
  sendRaw(frames: Buffer[]): Promise<void> {
    return this.out.send(frames);
  }

  flush(): Promise<void> {
    return this.out.flush();
  }

  closeSockets(): void {
    this.closeInput();
    this.out.close();
    this.output.close();
  }

  private reqLog(line: string): void {
    if (this.host.logRequests) this.log.info(line);
    else this.log.debug(line);
  }
}

function terminalOutput(id: string, finish: number): OutItem {
  return {
    requestId: id,
    newTokenIds: [],
    logprobs: null,
    promptLogprobs: null,
    finishReason: finish,
    stopReason: null,
    events: null,
    prefillStats: null,
  };
}

function countTokens(outputs: OutItem[]): number {
  let n = 0;
  for (const o of outputs) n += o.newTokenIds.length;
  return n;
}

function finishName(code: number): string {
  return ['stop', 'length', 'abort', 'error'][code] ?? String(code);
}
