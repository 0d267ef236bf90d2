/**
 * Event-loop figures of the serving process over one phase: delay percentiles
 * (monitorEventLoopDelay) and busy time (eventLoopUtilization). A child process is asked through
 * the loop-probe.mjs preload (SIGUSR2 → one stderr line); the bench process (the direct target's
 * in-process engine client) is watched in-process the same way.
 */
import { fileURLToPath } from 'node:url';
import { PerformanceObserver, monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { gcKindName } from './gc-kind.mjs';
import type { Child } from './procs.js';

export const LOOP_PROBE_FILE = fileURLToPath(new URL('./loop-probe.mjs', import.meta.url));
export const LOOP_PROBE_MARK = '@@smg-bench-loop ';
const GC_MARK = '@@smg-bench-gc ';

/**
 * Environment for a served process: turn lengths (a 1 ms timer reading schedstat, ~2 % of a core)
 * only where they are a figure, the long-prompt scenario.
 */
export function loopProbeEnv(phases: readonly string[]): Record<string, string> {
  return phases.includes('long-prompt') ? { SMG_BENCH_LOOP_TURNS: '1' } : {};
}
/** Must match loop-probe.mjs. */
const RESOLUTION_MS = 1;

export interface LoopStats {
  windowMs: number;
  samples: number;
  /** How late the loop ran its timer (ms); null when no sample was taken. */
  delayP50Ms: number | null;
  delayP99Ms: number | null;
  delayMaxMs: number | null;
  /** Milliseconds the main thread spent running callbacks in the window. */
  busyMs: number;
  utilization: number;
  /** Main-thread GC pauses in the window: their sum and the longest (ms). */
  gcMs: number;
  gcMaxMs: number;
  /** The longest pause's kind (minor = scavenge, major = mark-compact); absent where not recorded. */
  gcMaxKind?: string | null;
  /**
   * Main-thread CPU ms between two runs of a 1 ms timer (loop-probe.mjs): p99 and the longest, i.e.
   * the longest stretch the loop was held in one piece, without the time the thread waited for a
   * core (turnWaitMaxMs: the longest such wait between two runs). Null where not measured.
   */
  turnP99Ms?: number | null;
  turnMaxMs?: number | null;
  turnWaitMaxMs?: number | null;
}

/** Starts a window with `reset()`; `read()` ends it and returns what happened in it. */
export interface LoopProbe {
  reset(): Promise<void>;
  read(): Promise<LoopStats | null>;
  /** One full GC in the served process (loop-probe.mjs, SIGWINCH); false when it did not answer. */
  gc?(): Promise<boolean>;
}

/** Through the preload in a child: each SIGUSR2 answers with the window since the previous one. */
export class ChildLoopProbe implements LoopProbe {
  private waiting: ((s: LoopStats) => void)[] = [];
  private broken = false;

  private gcWaiting: ((ok: boolean) => void)[] = [];

  constructor(private readonly child: Child) {
    child.onLine((line) => {
      if (line.startsWith(GC_MARK)) {
        this.gcWaiting.shift()?.(line === `${GC_MARK}ok`);
        return true;
      }
      if (!line.startsWith(LOOP_PROBE_MARK)) return false;
      const next = this.waiting.shift();
      if (next) next(JSON.parse(line.slice(LOOP_PROBE_MARK.length)) as LoopStats);
      return true;
    });
  }

  async reset(): Promise<void> {
    await this.ask();
  }

  read(): Promise<LoopStats | null> {
    return this.ask();
  }

  async gc(): Promise<boolean> {
    if (!this.child.running) return false;
    const answer = new Promise<boolean>((resolve) => this.gcWaiting.push(resolve));
    this.child.child.kill('SIGWINCH');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 10_000)));
    const ok = await Promise.race([answer, timeout]);
    clearTimeout(timer);
    return ok;
  }

  private async ask(): Promise<LoopStats | null> {
    if (this.broken || !this.child.running) return null;
    const answer = new Promise<LoopStats>((resolve) => this.waiting.push(resolve));
    this.child.child.kill('SIGUSR2');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 10_000)));
    const got = await Promise.race([answer, timeout]);
    clearTimeout(timer);
    if (got === null) {
      // No preload answering (or the process is stuck): stop asking, report '-' from here on.
      this.broken = true;
      this.waiting = [];
    }
    return got;
  }
}

/** The bench process itself (the direct target serves from here). */
export class SelfLoopProbe implements LoopProbe {
  private readonly hist: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private elu = performance.eventLoopUtilization();
  private start = performance.now();
  private gcMs = 0;
  private gcMaxMs = 0;
  private gcMaxKind: string | null = null;
  private readonly gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      this.gcMs += e.duration;
      if (e.duration > this.gcMaxMs) {
        this.gcMaxMs = e.duration;
        this.gcMaxKind = gcKindName((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind);
      }
    }
  });

  constructor() {
    this.hist.enable();
    this.gcObserver.observe({ entryTypes: ['gc'] });
  }

  async reset(): Promise<void> {
    this.hist.reset();
    this.elu = performance.eventLoopUtilization();
    this.start = performance.now();
    this.gcMs = 0;
    this.gcMaxMs = 0;
    this.gcMaxKind = null;
  }

  async read(): Promise<LoopStats> {
    const d = performance.eventLoopUtilization(this.elu);
    const h = this.hist;
    const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    return {
      windowMs: performance.now() - this.start,
      samples: h.count,
      delayP50Ms: h.count > 0 ? late(h.percentile(50)) : null,
      delayP99Ms: h.count > 0 ? late(h.percentile(99)) : null,
      delayMaxMs: h.count > 0 ? late(h.max) : null,
      busyMs: d.active,
      utilization: d.utilization,
      gcMs: this.gcMs,
      gcMaxMs: this.gcMaxMs,
      gcMaxKind: this.gcMaxKind,
    };
  }

  close(): void {
    this.hist.disable();
    this.gcObserver.disconnect();
  }
}
