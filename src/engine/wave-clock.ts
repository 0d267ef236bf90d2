/**
 * The MoE lockstep wake (wire-vllm §3.6, smg-newest §1.8). Without a DP coordinator a parked
 * lockstep group never wakes by itself when one rank gets work, so the client plays coordinator:
 * after every ADD it bumps the clock and sends START_DP_WAVE [W, nil] to every rank. Bumping keeps
 * W ahead of each rank's own counter (a rank advances by one when it parks), so the wake is never
 * discarded as stale; waking unconditionally avoids racing a group that is just parking.
 */
import type { Registration } from './types.js';

export class WaveClock {
  private wave = 0;

  /** Lockstep iff any rank reports data_parallel_size > 1; dense ranks report 1. */
  static forRegistrations(regs: readonly Registration[]): WaveClock {
    return new WaveClock(regs.some((r) => r.dataParallelSize > 1));
  }

  constructor(readonly lockstep: boolean) {}

  get current(): number {
    return this.wave;
  }

  /** After a successful ADD: the wave to broadcast, or null for independent ranks. */
  afterAdd(): number | null {
    if (!this.lockstep) return null;
    this.wave += 1;
    return this.wave;
  }

  /** A rank parked at wave w and will next run at w+1. No wake: the group stays parked. */
  onWaveComplete(w: number): void {
    if (!this.lockstep) return;
    this.wave = Math.max(this.wave, w + 1);
  }

  /** A rank asks for wave w to start: catch up, then wake like after an ADD. */
  onStartWave(w: number): number | null {
    if (!this.lockstep) return null;
    this.wave = Math.max(this.wave, w);
    return this.afterAdd();
  }
}
