/**
 * One measured phase: C closed-loop workers issue requests until N were issued or the time cap
 * passed, then wait for the in-flight ones. Collects TTFT, inter-token gaps, per-request TPOT and
 * the CPU seconds the named processes burned during the phase.
 */
import { cpus, loadavg } from 'node:os';
import { interrupted, machineBusySeconds, procCpuSeconds, selfCpuSeconds } from './procs.js';
import type { GapSink } from './arrivals.js';
import { Samples, summarize, type Pcts } from './stats.js';

/** Where a request records its inter-token gaps (ms between consecutive token-bearing events). */
export type Recorder = GapSink;

export interface RequestResult {
  ok: boolean;
  error?: string;
  /** Generated tokens (usage.completion_tokens for the gateway, summed ids for direct). */
  tokens: number;
  /** Token-bearing events received (SSE content chunks / engine chunks with ids). */
  events: number;
  /** Event-loop turns that delivered tokens (see arrivals.ts). */
  arrivals: number;
  ttftMs: number;
  /** Request sent → response head (HTTP targets; NaN when none came). */
  headMs?: number;
  e2eMs: number;
}

/** Runs request number `seq`; must not throw (failures are returned as ok: false). */
export type RequestFn = (seq: number, rec: Recorder) => Promise<RequestResult>;

export interface CpuProbe {
  name: string;
  /** A pid read from /proc, 'self' for the bench process, 'machine' for all of /proc/stat. */
  pid: number | 'self' | 'machine';
}

export interface CpuUse {
  seconds: number;
  usPerToken: number;
  /** Per completed (ok) request. */
  usPerRequest: number;
  /** CPU seconds per wall second (1.0 = one core busy). */
  util: number;
}

/** CPU of each process between two readings (seconds), per token, per request and as cores. */
export function cpuUses(procs: readonly { name: string }[], c0: number[], c1: number[], wallSec: number, tokens: number, ok: number): Record<string, CpuUse> {
  const out: Record<string, CpuUse> = {};
  procs.forEach((p, i) => {
    const seconds = c1[i] - c0[i];
    out[p.name] = {
      seconds,
      usPerToken: tokens > 0 ? (seconds * 1e6) / tokens : Number.NaN,
      usPerRequest: ok > 0 ? (seconds * 1e6) / ok : Number.NaN,
      util: wallSec > 0 ? seconds / wallSec : Number.NaN,
    };
  });
  return out;
}

export interface PhaseResult {
  label: string;
  concurrency: number;
  planned: number;
  issued: number;
  ok: number;
  failed: number;
  errors: string[];
  capped: boolean;
  wallSec: number;
  tokens: number;
  events: number;
  arrivals: number;
  tokensPerSec: number;
  ttft: Pcts;
  itl: Pcts;
  tpot: Pcts;
  e2e: Pcts;
  cpu: Record<string, CpuUse>;
  /** 1-minute load average at the end of the phase, and the machine's core count. */
  loadAvg: number;
  cores: number;
}

export interface PhaseSpec {
  label: string;
  concurrency: number;
  requests: number;
  /** Keep issuing past `requests` until this much time passed (short phases measure CPU badly). */
  minMs: number;
  timeCapMs: number;
  run: RequestFn;
  cpu: CpuProbe[];
  /** Stop issuing after this many failures. */
  maxFailures?: number;
}

export function readCpu(p: CpuProbe): number {
  if (p.pid === 'self') return selfCpuSeconds();
  if (p.pid === 'machine') return machineBusySeconds();
  try {
    return procCpuSeconds(p.pid);
  } catch {
    return Number.NaN; // the process is gone; the caller's liveness check says why
  }
}

export async function runPhase(spec: PhaseSpec): Promise<PhaseResult> {
  const rec: Recorder = { gaps: new Samples() };
  const ttfts: number[] = [];
  const tpots: number[] = [];
  const e2es: number[] = [];
  const errors: string[] = [];
  let issued = 0;
  let ok = 0;
  let failed = 0;
  let tokens = 0;
  let events = 0;
  let arrivals = 0;
  let capped = false;
  let stop = false;
  const maxFailures = spec.maxFailures ?? Math.min(100, Math.max(10, Math.ceil(spec.requests / 10)));

  const cpu0 = spec.cpu.map(readCpu);
  const t0 = performance.now();
  let tLast = t0;

  const worker = async () => {
    while (!stop && !interrupted.signal.aborted) {
      const elapsed = performance.now() - t0;
      if (issued >= spec.requests && elapsed >= spec.minMs) return;
      if (elapsed > spec.timeCapMs) {
        capped = true;
        return;
      }
      const seq = issued++;
      const r = await spec.run(seq, rec);
      tLast = performance.now();
      if (r.ok) {
        ok += 1;
        tokens += r.tokens;
        events += r.events;
        arrivals += r.arrivals;
        ttfts.push(r.ttftMs);
        e2es.push(r.e2eMs);
        if (r.tokens > 1) tpots.push((r.e2eMs - r.ttftMs) / (r.tokens - 1));
      } else {
        failed += 1;
        if (errors.length < 5) errors.push(r.error ?? 'unknown error');
        if (failed >= maxFailures) stop = true;
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));

  const cpu1 = spec.cpu.map(readCpu);
  const wallSec = (tLast - t0) / 1000;
  const cpu = cpuUses(spec.cpu, cpu0, cpu1, wallSec, tokens, ok);
  return {
    label: spec.label,
    concurrency: spec.concurrency,
    planned: spec.requests,
    issued,
    ok,
    failed,
    errors,
    capped,
    wallSec,
    tokens,
    events,
    arrivals,
    tokensPerSec: wallSec > 0 ? tokens / wallSec : 0,
    ttft: summarize(ttfts),
    itl: summarize(rec.gaps.view()),
    tpot: summarize(tpots),
    e2e: summarize(e2es),
    cpu,
    loadAvg: loadavg()[0],
    cores: cpus().length,
  };
}

/** Warm-up: `n` requests at concurrency `c`, nothing recorded; returns the failures seen. */
export async function warmUp(c: number, n: number, run: RequestFn): Promise<string[]> {
  const rec: Recorder = { gaps: new Samples() };
  const errors: string[] = [];
  let issued = 0;
  const worker = async () => {
    while (issued < n && errors.length < 5 && !interrupted.signal.aborted) {
      const r = await run(issued++, rec);
      if (!r.ok) errors.push(r.error ?? 'unknown error');
    }
  };
  await Promise.all(Array.from({ length: Math.min(c, n) }, worker));
  return errors;
}

/** Time-based warm-up (JIT): closed-loop requests at concurrency `c` for about `ms`. */
export async function warmUpFor(c: number, ms: number, run: RequestFn): Promise<{ requests: number; errors: string[] }> {
  const rec: Recorder = { gaps: new Samples() };
  const errors: string[] = [];
  const end = performance.now() + ms;
  let issued = 0;
  const worker = async () => {
    while (performance.now() < end && errors.length < 5 && !interrupted.signal.aborted) {
      const r = await run(issued++, rec);
      if (!r.ok) errors.push(r.error ?? 'unknown error');
    }
  };
  await Promise.all(Array.from({ length: c }, worker));
  return { requests: issued, errors };
}
