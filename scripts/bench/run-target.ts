/**
 * Every phase of one target, in order: JIT warm-up, RSS soak, streaming levels, the max_tokens-1
 * phase, prompt cost (C=1, short vs ~2k-token prompt) and the long-prompt scenario. Each measured
 * phase also records the serving process's event loop (delay, busy time) and RSS before/after.
 */
import type { BenchOptions, PhaseGroup } from './args.js';
import { runGenerate, type GenerateCell } from './generate-stream.js';
import type { LoopStats } from './loop-stats.js';
import { runLongPrompt, type LongPromptResult } from './long-prompt.js';
import type { ArrivalsResult, PacedResult } from './paced.js';
import { runPhase, warmUp, warmUpFor, type PhaseResult, type PhaseSpec, type RequestFn } from './phase.js';
import { interrupted, rssBytes } from './procs.js';
import { fmtMs, fmtNum } from './stats.js';
import { SERVER, type TargetHandle } from './targets/target.js';

export interface MeasuredPhase extends PhaseResult {
  loop: LoopStats | null;
  rssBeforeMB: number;
  rssAfterMB: number;
}

export interface SoakResult {
  /** Requests asked for (--soak) and completed. */
  planned: number;
  phase: MeasuredPhase;
  rssWarmMB: number;
  rssAfterMB: number;
}

export interface PromptCostResult {
  short: MeasuredPhase;
  long: MeasuredPhase;
}

export interface TargetResults {
  target: string;
  rssAfterWarmupMB: number;
  rssAtEndMB: number;
  soak: SoakResult | null;
  streaming: Record<number, MeasuredPhase>;
  short: MeasuredPhase | null;
  promptCost: PromptCostResult | null;
  longPrompt: LongPromptResult | null;
  /** Issue 30: /generate streaming (gateway only), the paced phase and the arrival burst. */
  generate: GenerateCell[] | null;
  paced: PacedResult | null;
  arrivals: ArrivalsResult | null;
}

export function emptyResults(target: string): TargetResults {
  return {
    target,
    rssAfterWarmupMB: Number.NaN,
    rssAtEndMB: Number.NaN,
    soak: null,
    streaming: {},
    short: null,
    promptCost: null,
    longPrompt: null,
    generate: null,
    paced: null,
    arrivals: null,
  };
}

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const mb = (bytes: number) => bytes / (1024 * 1024);

function progress(r: MeasuredPhase): void {
  const s = r.cpu[SERVER];
  const loop = r.loop?.delayP99Ms != null ? `, loop delay p99 ${fmtMs(r.loop.delayP99Ms)} ms` : '';
  const itl = r.itl.count > 0 ? `, ITL p99 ${fmtMs(r.itl.p99)} ms` : '';
  log(
    `  ${r.label}: ${r.ok}/${r.issued} ok${r.capped ? ' (time cap)' : ''}, ${fmtNum(r.tokensPerSec)} tok/s, ` +
      `TTFT p50 ${fmtMs(r.ttft.p50)} ms${itl}; server ${fmtNum(s.usPerToken, 1)} µs/tok ` +
      `${fmtNum(s.usPerRequest)} µs/req ${s.util.toFixed(2)} cores${loop}; RSS ${r.rssBeforeMB.toFixed(0)}→${r.rssAfterMB.toFixed(0)} MB`,
  );
  if (r.failed > 0) log(`  ${r.failed} failed: ${r.errors.join(' | ')}`);
}

/**
 * `groups`: the phase groups to run here (default all of --phases). A run of only 'long-prompt'
 * (its own paced target) skips the stream/short JIT warm-up; the scenario warms its own path.
 */
export async function runTarget(t: TargetHandle, opts: BenchOptions, groups: readonly PhaseGroup[] = opts.phases): Promise<TargetResults> {
  const name = t.target === 'ceiling' ? 'http-ceiling' : t.target;
  const has = (p: PhaseGroup) => groups.includes(p);
  const onlyScenario = groups.every((g) => g === 'long-prompt');
  const must = (kind: Parameters<TargetHandle['fn']>[0]): RequestFn => {
    const fn = t.fn(kind);
    if (!fn) throw new Error(`${name} cannot serve '${kind}' requests`);
    return fn;
  };
  const measure = async (label: string, spec: Omit<PhaseSpec, 'label' | 'cpu'>): Promise<MeasuredPhase> => {
    interrupted.signal.throwIfAborted();
    await t.alive();
    const rssBeforeMB = mb(rssBytes(t.serverPid));
    await t.loop.reset();
    const r = await runPhase({ ...spec, label: `${name} ${label}`, cpu: t.cpu });
    const loop = await t.loop.read();
    const m: MeasuredPhase = { ...r, loop, rssBeforeMB, rssAfterMB: mb(rssBytes(t.serverPid)) };
    interrupted.signal.throwIfAborted();
    progress(m);
    await t.alive();
    return m;
  };
  const warm = async (label: string, c: number, n: number, fn: RequestFn) => {
    if (n <= 0) return;
    const errs = await warmUp(c, n, fn);
    if (errs.length > 0) throw new Error(`${name} warm-up (${label}) failed: ${errs.join(' | ')}`);
  };

  const stream = must('stream');
  const short = must('short');
  if (opts.warmupSecs > 0 && !onlyScenario) {
    log(`${name}: JIT warm-up, ${opts.warmupSecs}s of streams at C=32, then ${opts.shortConcurrency * 8} short requests`);
    const w = await warmUpFor(32, opts.warmupSecs * 1000, stream);
    if (w.errors.length > 0) throw new Error(`${name} warm-up failed: ${w.errors.join(' | ')}`);
  }
  if (!onlyScenario) await warm('short', opts.shortConcurrency, opts.shortConcurrency * 8, short);
  const rssAfterWarmupMB = mb(rssBytes(t.serverPid));
  if (!onlyScenario) await t.onMeasureStart?.();
  const out: TargetResults = { ...emptyResults(name), rssAfterWarmupMB };

  // The soak comes first so that "after warm-up" means just that, not after the big phases.
  if (has('soak') && opts.soakRequests > 0 && t.serverPid !== 'self') {
    log(`${name}: RSS soak, ${opts.soakRequests} short requests at C=${opts.shortConcurrency} (cap ${opts.soakTimeCapSec}s)`);
    const phase = await measure(`soak C=${opts.shortConcurrency}`, {
      concurrency: opts.shortConcurrency,
      requests: opts.soakRequests,
      minMs: 0,
      timeCapMs: opts.soakTimeCapSec * 1000,
      run: short,
    });
    out.soak = { planned: opts.soakRequests, phase, rssWarmMB: rssAfterWarmupMB, rssAfterMB: phase.rssAfterMB };
  }

  if (has('streaming')) {
    for (const c of opts.concurrency) {
      await warm(`C=${c}`, c, Math.max(c, opts.warmup), stream);
      const n = opts.requests ?? Math.max(opts.minRequests, 4 * c);
      log(`${name} C=${c}: measuring ≥${n} streams of ${opts.maxTokens} tokens for ≥${opts.minPhaseSec}s (cap ${opts.timeCapSec}s)`);
      out.streaming[c] = await measure(`C=${c}`, { concurrency: c, requests: n, minMs: opts.minPhaseSec * 1000, timeCapMs: opts.timeCapSec * 1000, run: stream });
    }
  }

  if (has('short')) {
    const c = opts.shortConcurrency;
    await warm('short', c, c, short);
    const secs = Math.max(opts.minPhaseSec, opts.shortSecs);
    log(`${name} max_tokens 1, C=${c}: measuring for ≥${secs}s`);
    out.short = await measure(`max_tokens 1 C=${c}`, {
      concurrency: c,
      requests: opts.requests ?? Math.max(opts.minRequests, 8 * c),
      minMs: secs * 1000,
      timeCapMs: opts.timeCapSec * 1000,
      run: short,
    });
  }

  if (has('generate') && t.baseUrl && typeof t.serverPid === 'number') {
    log(`${name}: /generate streaming, ${opts.generateLengths.join(' and ')} tokens × ${opts.generateConcurrency}, cumulative vs incremental`);
    await t.alive();
    out.generate = await runGenerate(t.baseUrl, t.serverPid, opts);
    await t.alive();
  }

  const cost = t.fn('cost');
  if (has('prompt-cost') && cost) {
    log(`${name}: prompt cost at C=1, short prompt vs ~${opts.promptCostTokens}-token prompt, max_tokens ${opts.longMaxTokens}`);
    await warm('long prompt', 1, 10, cost);
    const spec = { concurrency: 1, requests: opts.promptCostRequests, minMs: opts.minPhaseSec * 1000, timeCapMs: opts.timeCapSec * 1000 };
    const s = await measure('short prompt C=1', { ...spec, run: short });
    const l = await measure('long prompt C=1', { ...spec, run: cost });
    out.promptCost = { short: s, long: l };
  }

  const long = t.fn('long');

  const background = t.fn('background');
  if (has('long-prompt') && long && background) {
    log(
      `${name}: long-prompt scenario, ${opts.longStreams} streams of ${opts.longStreamMaxTokens} tokens, ` +
        `${opts.longWindowSec}s alone then ${opts.longWindowSec}s with long prompts at C=${opts.longConcurrency}`,
    );
    await t.alive();
    const r = await runLongPrompt({
      background,
      long,
      streams: opts.longStreams,
      longConcurrency: opts.longConcurrency,
      windowMs: opts.longWindowSec * 1000,
      warmMs: Math.min(3000, Math.max(1000, opts.warmupSecs * 1000)),
      loop: t.loop,
      cpu: t.cpu,
    });
    interrupted.signal.throwIfAborted();
    log(
      `  background ITL p99 ${r.alone.bgItl.p99.toFixed(2)} ms alone, ${r.withLong.bgItl.p99.toFixed(2)} ms with long prompts; ` +
        `gap p99 ${r.alone.bgGap.p99.toFixed(2)} / ${r.withLong.bgGap.p99.toFixed(2)} ms; ` +
        `longest turn ${r.alone.loop?.turnMaxMs?.toFixed(1) ?? '-'} / ${r.withLong.loop?.turnMaxMs?.toFixed(1) ?? '-'} ms ` +
        `(${r.withLong.long?.ok ?? 0} long requests, TTFT p50 ${r.withLong.long?.ttft.p50.toFixed(1) ?? '-'} ms)`,
    );
    if (r.errors.length > 0) log(`  errors: ${r.errors.join(' | ')}`);
    await t.alive();
    out.longPrompt = r;
  }
  out.rssAtEndMB = mb(rssBytes(t.serverPid));
  return out;
}
