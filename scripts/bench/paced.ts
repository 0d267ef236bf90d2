/**
 * Issue 30's paced phase and arrival burst, run on a fresh target whose engine (or the ceiling)
 * steps every --paced-step-ms: one token per running stream per step, the regime of a real engine.
 *
 * Paced phase: N streams are opened over --paced-ramp seconds (so arrival cost is not measured
 * here), and once the last one has had a second to get its first token, a window of
 * --paced-window seconds measures with all N open: CPU per delivered token of the serving process,
 * its loop delay, the gap between a stream's arrivals (one sample per arrival), tokens/s
 * per stream, and its RSS (sampled every 250 ms). RSS per open stream = (median RSS in the window −
 * RSS before the phase, read after full GCs: warmPaced) ÷ N. When the streams have ended, the client closes its connections (the
 * users went away) and RSS is read again after --paced-idle seconds: what the process gave back.
 *
 * Arrival burst: on that idle target, N requests issued in one synchronous loop on fresh
 * connections: TTFT p50/p99 and the requests that got no response head before --arrivals-timeout.
 *
 * Every phase uses its own http.Agent so the gateway and the ceiling start from the same state
 * (no warm keep-alive sockets on one and not the other) and the client holds one socket per stream.
 */
import type { GapSink } from './arrivals.js';
import { PACED_SETTLE_SEC, PACED_SLACK_SEC, type BenchOptions } from './args.js';
import { createAgent, httpRequestFn } from './http-client.js';
import { SelfLoopProbe, type LoopStats } from './loop-stats.js';
import { cpuUses, readCpu, warmUpFor, type CpuUse, type RequestResult } from './phase.js';
import { interrupted, rssBytes, sleep } from './procs.js';
import { Samples, percentile, summarize, type Pcts } from './stats.js';
import type { TargetHandle } from './targets/target.js';

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const mb = (bytes: number) => bytes / (1024 * 1024);

export interface PacedResult {
  streams: number;
  stepMs: number;
  maxTokens: number;
  ok: number;
  failed: number;
  errors: string[];
  /** Streams whose first token came after the window opened / that ended before it closed. */
  lateStarts: number;
  /** From the end of the ramp until every stream had its first token (ms). */
  firstTokenLagMs: number;
  endedEarly: number;
  windowSec: number;
  /** Tokens delivered in the window (all streams) and per stream per second. */
  windowTokens: number;
  tokensPerStreamPerSec: number;
  ttft: Pcts;
  /** Whole gaps between a stream's arrivals in the window, one sample per arrival. */
  gap: Pcts;
  /** Over the window; usPerToken = per delivered token. */
  cpu: Record<string, CpuUse>;
  loop: LoopStats | null;
  /** This bench process's own loop over the window: a late client would read as a slow server. */
  clientLoop: LoopStats | null;
  /** RSS (MB): before the phase (after warm-up, idle), median and max with all N open, when the streams ended, after the idle wait. */
  rssPreMB: number;
  rssOpenMB: number;
  rssOpenMaxMB: number;
  rssEndMB: number;
  rssIdleMB: number;
  idleSec: number;
  /** (rssOpenMB − rssPreMB) × 1024 ÷ N. */
  rssPerStreamKB: number;
}

export interface ArrivalsResult {
  requests: number;
  maxTokens: number;
  ok: number;
  failed: number;
  /** Requests that got no response head (within the timeout, or at all). */
  noHead: number;
  errors: string[];
  ttft: Pcts;
  head: Pcts;
  /** How long this client took to issue the burst (TTFT counts from each request's call). */
  issueMs: number;
  wallSec: number;
  loop: LoopStats | null;
  cpu: Record<string, CpuUse>;
  /** The warm-up burst the bench runs just before this one on the same target (the first burst on it). */
  firstBurst?: { ok: number; failed: number; ttft: Pcts };
}


function errorsOf(results: RequestResult[]): string[] {
  const seen = new Map<string, number>();
  for (const r of results) if (!r.ok) seen.set(r.error ?? 'unknown error', (seen.get(r.error ?? 'unknown error') ?? 0) + 1);
  return [...seen].slice(0, 5).map(([e, n]) => `${n}× ${e}`);
}

/**
 * JIT warm-up of a fresh paced target on its own connections, closed afterwards. At a low
 * concurrency on purpose: a warm-up at N streams would leave the heap sized for N, and "RSS before
 * the phase" would already hold what the open streams are to be charged for.
 */
export async function warmPaced(t: TargetHandle, opts: BenchOptions, name: string): Promise<void> {
  const agent = createAgent();
  try {
    const c = Math.min(32, opts.pacedStreams);
    const secs = Math.max(2, opts.warmupSecs);
    log(`${name}: paced warm-up, ${secs}s of ${opts.arrivalsMaxTokens}-token streams at C=${c}`);
    const w = await warmUpFor(c, secs * 1000, httpRequestFn(t.httpTarget!('arrival'), agent));
    if (w.errors.length > 0) throw new Error(`${name} paced warm-up failed: ${w.errors.join(' | ')}`);
  } finally {
    agent.destroy();
  }
  // "Before the phase" is the process with its startup and warm-up garbage collected: full GCs
  // (loop-probe.mjs), then at least 2 s, until RSS moved less than 2 MB over 2 s (8 s at most).
  // The GCs take the garbage out of the baseline; the gateway's RSS still moves by tens of MB
  // between runs (page release, native memory), so read RSS per stream over several runs.
  const rss0 = mb(rssBytes(t.serverPid));
  for (let i = 0; i < 2; i++) {
    // Twice: what the first one's finalizers and weak callbacks let go is collected by the second.
    if (!(await t.loop.gc?.())) log(`${name}: WARNING: no GC before the paced phase (loop probe did not answer); RSS before may hold garbage`);
    await sleep(500);
  }
  log(`${name}: RSS ${rss0.toFixed(0)} MB after the warm-up, ${mb(rssBytes(t.serverPid)).toFixed(0)} MB after two full GCs`);
  const rss: number[] = [];
  const end = performance.now() + 8000;
  do {
    await sleep(500);
    rss.push(mb(rssBytes(t.serverPid)));
  } while (performance.now() < end && (rss.length < 4 || Math.abs(rss[rss.length - 1] - rss[rss.length - 5]) >= 2));
}

export async function runPaced(t: TargetHandle, opts: BenchOptions, name: string): Promise<PacedResult> {
  const n = opts.pacedStreams;
  const target = t.httpTarget!('paced');
  const maxTokens = JSON.parse((target.body as Buffer).toString('utf8')).max_tokens as number;
  const agent = createAgent();
  const run = httpRequestFn(target, agent);
  let firsts = 0;
  const sink: GapSink = { gaps: new Samples(), arrivalGaps: new Samples(), onFirstToken: () => (firsts += 1) };
  const rssPreMB = mb(rssBytes(t.serverPid));
  log(
    `${name}: paced phase, ${n} streams of ${maxTokens} tokens at one per ${opts.pacedStepMs} ms, opened over ${opts.pacedRampSec}s, ` +
      `${opts.pacedWindowSec}s window; RSS before ${rssPreMB.toFixed(0)} MB`,
  );
  const started = new Float64Array(n);
  const pending: Promise<RequestResult>[] = [];
  const t0 = performance.now();
  const rampMs = opts.pacedRampSec * 1000;
  for (let i = 0; i < n; i++) {
    interrupted.signal.throwIfAborted();
    const wait = t0 + (i * rampMs) / n - performance.now();
    if (wait >= 1) await sleep(wait);
    started[i] = performance.now();
    pending.push(run(i, sink));
  }
  const all = Promise.all(pending);
  // The window opens once every stream has its first token (or failed), so it measures streams,
  // not arrivals; a server that lags its arrivals by more than the slack ends streams early
  // (counted below).
  let settled = 0;
  void Promise.all(pending.map((p) => p.then((r) => !r.ok && (settled += 1))));
  const deadline = performance.now() + PACED_SLACK_SEC * 1000;
  while (firsts + settled < n && performance.now() < deadline) {
    interrupted.signal.throwIfAborted();
    await sleep(50);
  }
  const lagMs = performance.now() - t0 - rampMs;
  await sleep(PACED_SETTLE_SEC * 1000);

  // The window: every stream open (checked afterwards: lateStarts / endedEarly).
  await t.loop.reset();
  const clientProbe = new SelfLoopProbe();
  sink.gaps = new Samples();
  sink.arrivalGaps = new Samples();
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(mb(rssBytes(t.serverPid))), 250);
  const c0 = t.cpu.map(readCpu);
  const w0 = performance.now();
  await sleep(opts.pacedWindowSec * 1000);
  const c1 = t.cpu.map(readCpu);
  const w1 = performance.now();
  clearInterval(sampler);
  const clientLoop = await clientProbe.read();
  clientProbe.close();
  const loop = await t.loop.read();
  // One ITL sample per token after a stream's first: in the window every stream is past its first.
  const windowTokens = sink.gaps.length;
  const gap = summarize(sink.arrivalGaps!.view());
  sink.gaps = new Samples();
  sink.arrivalGaps = new Samples();
  const windowSec = (w1 - w0) / 1000;

  const results = await all;
  const rssEndMB = mb(rssBytes(t.serverPid));
  agent.destroy();
  let lateStarts = 0;
  let endedEarly = 0;
  results.forEach((r, i) => {
    if (r.ok && started[i] + r.ttftMs > w0) lateStarts += 1;
    if (started[i] + r.e2eMs < w1) endedEarly += 1;
  });
  const ok = results.filter((r) => r.ok).length;
  const sorted = [...rss].sort((a, b) => a - b);
  const rssOpenMB = percentile(sorted, 50);
  log(`${name}: streams ended (${ok}/${n} ok); RSS ${rssEndMB.toFixed(0)} MB; ${opts.pacedIdleSec}s idle`);
  const idleEnd = performance.now() + opts.pacedIdleSec * 1000;
  while (performance.now() < idleEnd) {
    interrupted.signal.throwIfAborted();
    await sleep(Math.min(1000, Math.max(0, idleEnd - performance.now())));
  }
  const rssIdleMB = mb(rssBytes(t.serverPid));
  const r: PacedResult = {
    streams: n,
    stepMs: opts.pacedStepMs,
    maxTokens,
    ok,
    failed: n - ok,
    errors: errorsOf(results),
    lateStarts,
    firstTokenLagMs: lagMs,
    endedEarly,
    windowSec,
    windowTokens,
    tokensPerStreamPerSec: windowTokens / windowSec / n,
    ttft: summarize(results.filter((x) => x.ok).map((x) => x.ttftMs)),
    gap,
    cpu: cpuUses(t.cpu, c0, c1, windowSec, windowTokens, 0),
    loop,
    clientLoop,
    rssPreMB,
    rssOpenMB,
    rssOpenMaxMB: sorted[sorted.length - 1] ?? Number.NaN,
    rssEndMB,
    rssIdleMB,
    idleSec: opts.pacedIdleSec,
    rssPerStreamKB: ((rssOpenMB - rssPreMB) * 1024) / n,
  };
  log(
    `  ${name} paced: ${r.cpu.server.usPerToken.toFixed(1)} µs/token, ${r.cpu.server.util.toFixed(2)} cores (client ${r.cpu.client?.util.toFixed(2) ?? '-'}), ` +
      `client loop delay p99 ${clientLoop.delayP99Ms?.toFixed(1) ?? '-'} ms, ${r.tokensPerStreamPerSec.toFixed(1)} tok/s per stream, gap p99 ${r.gap.p99.toFixed(1)} ms, TTFT p50 ${r.ttft.p50.toFixed(1)} ms, ` +
      `loop delay p99 ${loop?.delayP99Ms?.toFixed(2) ?? '-'} ms; RSS ${rssPreMB.toFixed(0)} → ${rssOpenMB.toFixed(0)} (open) → ${rssEndMB.toFixed(0)} → ` +
      `${rssIdleMB.toFixed(0)} MB (${r.rssPerStreamKB.toFixed(0)} KB/stream)` +
      (lateStarts + endedEarly > 0 ? `; ${lateStarts} started late, ${endedEarly} ended early` : ''),
  );
  if (r.failed > 0) log(`  ${r.failed} failed: ${r.errors.join(' | ')}`);
  return r;
}

export async function runArrivals(t: TargetHandle, opts: BenchOptions, name: string): Promise<ArrivalsResult> {
  const n = opts.arrivals;
  const agent = createAgent();
  const target = { ...t.httpTarget!('arrival'), timeoutMs: opts.arrivalsTimeoutSec * 1000 };
  const run = httpRequestFn(target, agent);
  const sink: GapSink = { gaps: new Samples() };
  log(`${name}: arrival burst, ${n} streams of ${opts.arrivalsMaxTokens} tokens issued together on new connections`);
  await t.loop.reset();
  const c0 = t.cpu.map(readCpu);
  const t0 = performance.now();
  const pending: Promise<RequestResult>[] = [];
  for (let i = 0; i < n; i++) pending.push(run(i, sink));
  const issueMs = performance.now() - t0;
  const results = await Promise.all(pending);
  const wallSec = (performance.now() - t0) / 1000;
  const c1 = t.cpu.map(readCpu);
  const loop = await t.loop.read();
  agent.destroy();
  const ok = results.filter((r) => r.ok);
  const tokens = ok.reduce((a, r) => a + r.tokens, 0);
  const r: ArrivalsResult = {
    requests: n,
    maxTokens: opts.arrivalsMaxTokens,
    ok: ok.length,
    failed: n - ok.length,
    noHead: results.filter((x) => !Number.isFinite(x.headMs)).length,
    errors: errorsOf(results),
    ttft: summarize(ok.map((x) => x.ttftMs)),
    head: summarize(results.filter((x) => Number.isFinite(x.headMs)).map((x) => x.headMs!)),
    issueMs,
    wallSec,
    loop,
    cpu: cpuUses(t.cpu, c0, c1, wallSec, tokens, ok.length),
  };
  log(
    `  ${name} arrivals: ${r.ok}/${n} ok, TTFT p50 ${r.ttft.p50.toFixed(1)} ms p99 ${r.ttft.p99.toFixed(1)} ms, ` +
      `${r.noHead} without a response head, loop delay p99 ${loop?.delayP99Ms?.toFixed(1) ?? '-'} ms`,
  );
  if (r.failed > 0) log(`  ${r.failed} failed: ${r.errors.join(' | ')}`);
  return r;
}
