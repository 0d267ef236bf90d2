/**
 * Step loops. Dense ranks step independently. A MoE lockstep group (wire-vllm §3.6) steps as one:
 * a rank runs when a START_DP_WAVE woke it or when it holds requests (a real rank with work enters
 * its forward pass and blocks in the collectives until the peers join), and nothing advances on
 * any rank until every rank of the group runs. Every 32 steps the group checks ("all-reduce")
 * whether anyone is unfinished; if not, every rank reports wave_complete, bumps its wave, parks.
 */
import type { Logger } from '../util/logger.js';
import type { MockRank } from './rank.js';
import { tick, type Signal } from './signal.js';
import { monotonicSeconds } from './wire/seam.js';
import { EXTRA_LOAD_STEP_MS } from './rank-load.js';

/** vLLM all-reduces "any unfinished requests?" only every this many lockstep steps. */
export const ALLREDUCE_INTERVAL = 32;

export interface DriverHost {
  readonly work: Signal;
  readonly tokenDelayMs: number;
  readonly logger: Logger;
  /** Shutdown or a fatal fault ended the process. */
  readonly stopped: boolean;
  /** `silent` fault: no step makes progress any more. */
  readonly frozen: boolean;
}

export async function runDense(rank: MockRank, host: DriverHost): Promise<void> {
  while (!host.stopped) {
    // Extra (--mock-rank-load) requests keep a rank stepping, so its stats reach the gateway.
    const busy = rank.sched.hasWork || rank.extraLoad !== null;
    if (host.frozen || !busy) {
      await host.work.wait();
      continue;
    }
    rank.step(monotonicSeconds(), 0);
    // Only a rank kept busy by injected load alone slows to the stats cadence; a rank that just
    // drained its own requests must not delay the next one's first token.
    const idleWithLoad = !rank.sched.hasWork && rank.extraLoad !== null;
    await tick(idleWithLoad ? Math.max(host.tokenDelayMs, EXTRA_LOAD_STEP_MS) : host.tokenDelayMs);
  }
}

export async function runLockstep(ranks: MockRank[], host: DriverHost): Promise<void> {
  let stepCounter = 0;
  const log = host.logger;
  while (!host.stopped) {
    const running = ranks.every((r) => r.awake || r.sched.hasWork);
    if (host.frozen || !running) {
      await host.work.wait();
      continue;
    }
    for (const r of ranks) r.awake = true;
    stepCounter += 1;
    const now = monotonicSeconds();
    // A rank without requests runs a dummy batch: no outputs, no stats.
    for (const r of ranks) if (r.sched.hasWork) r.step(now, stepCounter);
    const busy = ranks.some((r) => r.sched.hasWork);
    if (!busy && stepCounter % ALLREDUCE_INTERVAL === 0) {
      for (const r of ranks) {
        r.sendWaveComplete();
        r.wave += 1;
        r.awake = false;
      }
      log.info(`lockstep group drained: wave_complete sent, parked at wave ${ranks[0].wave}`);
      stepCounter = 0;
      continue;
    }
    await tick(busy ? host.tokenDelayMs : 0);
  }
}
