/**
 * The long-prompt scenario: background streams run closed-loop the whole time (each re-issued
 * when it finishes); long prompts are sent for a while first (JIT warm-up of that path, not
 * measured); then window A measures the streams alone and window B while ~2k-token prompts arrive
 * closed-loop at a fixed concurrency. The figures are the background streams' ITL p99 and gap
 * p99 (per arrival) in A vs B: how much prompt processing (template + tokenize) stalls every
 * other stream of the process.
 */
import { collectNow } from '../../src/util/idle-gc.js';
import type { GapSink } from './arrivals.js';
import { SelfLoopProbe, type LoopProbe, type LoopStats } from './loop-stats.js';
import { readCpu, type CpuProbe, type CpuUse, type RequestFn, type RequestResult } from './phase.js';
import { interrupted, sleep } from './procs.js';
import { Samples, summarize, type Pcts } from './stats.js';

export interface WindowResult {
  wallSec: number;
  /** Background tokens that arrived in the window (one ITL sample each) and their rate. */
  bgTokens: number;
  bgTokensPerSec: number;
  /** Per token (the other phases' ITL) and per arrival (a stall kept whole, see arrivals.ts). */
  bgItl: Pcts;
  bgGap: Pcts;
  /** The long-prompt requests started in the window (window B only). */
  long: { ok: number; failed: number; ttft: Pcts; perSec: number } | null;
  loop: LoopStats | null;
  /** This bench process's own loop over the window: it reads the streams, so its stalls are gaps too. */
  clientLoop: LoopStats | null;
  cpu: Record<string, CpuUse>;
}

export interface LongPromptResult {
  streams: number;
  longConcurrency: number;
  alone: WindowResult;
  withLong: WindowResult;
  errors: string[];
}

export interface LongPromptSpec {
  background: RequestFn;
  long: RequestFn;
  streams: number;
  longConcurrency: number;
  windowMs: number;
  /** Long prompts sent before the windows (not measured). */
  warmMs: number;
  loop: LoopProbe;
  cpu: CpuProbe[];
}

/** Closed-loop workers until `stop()`; `done` resolves when the in-flight requests finished. */
function pool(c: number, run: RequestFn, sink: GapSink, onResult: (r: RequestResult) => void) {
  let stopped = false;
  let seq = 0;
  const worker = async () => {
    while (!stopped && !interrupted.signal.aborted) onResult(await run(seq++, sink));
  };
  const done = Promise.all(Array.from({ length: c }, worker));
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}

/** One measured window: `during` runs while the background streams' gaps are collected. */
async function window(spec: LongPromptSpec, sink: GapSink & Required<Pick<GapSink, 'arrivalGaps'>>, during: () => Promise<void>): Promise<WindowResult> {
  // This process reads the background streams, so its own GC pauses count in their gaps: by this
  // scenario its heap holds every earlier phase's results, and its full GCs took 9-17 ms inside the
  // windows (the "client GC pause max" row). Each window starts collected.
  collectNow();
  await spec.loop.reset();
  const clientProbe = new SelfLoopProbe();
  sink.gaps = new Samples();
  sink.arrivalGaps = new Samples();
  const cpu0 = spec.cpu.map(readCpu);
  const t0 = performance.now();
  await during();
  const wallSec = (performance.now() - t0) / 1000;
  const gaps = sink.gaps.view();
  const arrivalGaps = sink.arrivalGaps.view();
  sink.gaps = new Samples();
  sink.arrivalGaps = new Samples();
  const cpu1 = spec.cpu.map(readCpu);
  const loop = await spec.loop.read();
  const clientLoop = await clientProbe.read();
  clientProbe.close();
  const cpu: Record<string, CpuUse> = {};
  spec.cpu.forEach((p, i) => {
    const seconds = cpu1[i] - cpu0[i];
    cpu[p.name] = { seconds, usPerToken: (seconds * 1e6) / Math.max(1, gaps.length), usPerRequest: Number.NaN, util: seconds / wallSec };
  });
  return { wallSec, bgTokens: gaps.length, bgTokensPerSec: gaps.length / wallSec, bgItl: summarize(gaps), bgGap: summarize(arrivalGaps), long: null, loop, clientLoop, cpu };
}

export async function runLongPrompt(spec: LongPromptSpec): Promise<LongPromptResult> {
  const errors: string[] = [];
  const note = (r: RequestResult) => {
    if (!r.ok && errors.length < 5) errors.push(r.error ?? 'unknown error');
  };
  const sink: GapSink & Required<Pick<GapSink, 'arrivalGaps'>> = { gaps: new Samples(), arrivalGaps: new Samples() };
  let bgFailed = 0;
  const bg = pool(spec.streams, spec.background, sink, (r) => {
    if (!r.ok) bgFailed += 1;
    note(r);
  });
  try {
    if (spec.warmMs > 0) {
      const warm = pool(spec.longConcurrency, spec.long, { gaps: new Samples() }, note);
      await sleep(spec.warmMs);
      warm.stop();
      await warm.done;
    }
    // Let the streams settle (no long prompt in flight) before measuring.
    await sleep(1000);
    interrupted.signal.throwIfAborted();
    const alone = await window(spec, sink, () => sleep(spec.windowMs));
    interrupted.signal.throwIfAborted();

    const ttfts: number[] = [];
    let ok = 0;
    let okInWindow = 0;
    let failed = 0;
    let inWindow = true;
    let longs: ReturnType<typeof pool> | null = null;
    let longSec = 0;
    const withLong = await window(spec, sink, async () => {
      const t0 = performance.now();
      longs = pool(spec.longConcurrency, spec.long, { gaps: new Samples() }, (r) => {
        if (r.ok) {
          ok += 1;
          if (inWindow) okInWindow += 1;
          ttfts.push(r.ttftMs);
        } else {
          failed += 1;
        }
        note(r);
      });
      await sleep(spec.windowMs);
      inWindow = false;
      longs.stop();
      longSec = (performance.now() - t0) / 1000;
    });
    // The long requests still in flight when the window closed finish outside it.
    await longs!.done;
    withLong.long = { ok, failed, ttft: summarize(ttfts), perSec: okInWindow / longSec };
    if (bgFailed > 0) errors.unshift(`${bgFailed} background streams failed`);
    return { streams: spec.streams, longConcurrency: spec.longConcurrency, alone, withLong, errors };
  } finally {
    bg.stop();
    await bg.done;
  }
}
