/**
 * The figures issue 17 judges the hot-path work by, computed from each target's results, with the
 * goals the issue sets. Printed as the final table (report-issue.ts) and written to --json.
 */
import type { BenchOptions, Target } from './args.js';
import type { MeasuredPhase, TargetResults } from './run-target.js';
import { SERVER } from './targets/target.js';

export interface Goal {
  /** The figure must be at most / at least `value` (for `ratio` goals: gateway ÷ http-ceiling). */
  op: '<=' | '>=';
  value: number;
  on: 'gateway' | 'ratio';
  text: string;
}

export interface Figure {
  key: string;
  label: string;
  unit: string;
  /** Per target; NaN / missing = not measured. */
  values: Partial<Record<Target, number>>;
  /** Extra text per target (e.g. RSS MB behind a ratio). */
  details?: Partial<Record<Target, string>>;
  goal?: Goal;
}

const at = (r: TargetResults | undefined, c: number): MeasuredPhase | undefined => r?.streaming[c];

/** The streaming level closest to `want` (the issue's figures are for C = 64 / 256). */
function nearest(levels: number[], want: number): number {
  return levels.reduce((best, c) => (Math.abs(c - want) < Math.abs(best - want) ? c : best), levels[0]);
}

function perTarget(results: Partial<Record<Target, TargetResults>>, f: (r: TargetResults) => number | undefined): Partial<Record<Target, number>> {
  const out: Partial<Record<Target, number>> = {};
  for (const [t, r] of Object.entries(results) as [Target, TargetResults][]) {
    const v = f(r);
    if (v !== undefined && Number.isFinite(v)) out[t] = v;
  }
  return out;
}

/** Main-thread busy ms per request (event-loop utilization over the phase ÷ requests). */
export function loopMsPerRequest(p: MeasuredPhase | undefined): number | undefined {
  return p?.loop && p.ok > 0 ? p.loop.busyMs / p.ok : undefined;
}

export function issueFigures(opts: BenchOptions, results: Partial<Record<Target, TargetResults>>): Figure[] {
  const figs: Figure[] = [];
  const levels = opts.concurrency;
  const has = (p: BenchOptions['phases'][number]) => opts.phases.includes(p);
  if (has('streaming') && levels.length > 0) {
    const c64 = nearest(levels, 64);
    figs.push({
      key: 'cpuPerToken',
      label: `CPU µs / streamed token (C=${c64}, max_tokens ${opts.maxTokens})`,
      unit: 'µs',
      values: perTarget(results, (r) => at(r, c64)?.cpu[SERVER]?.usPerToken),
      goal: { op: '<=', value: 8, on: 'gateway', text: '≤ 8 µs' },
    });
  }
  if (has('short')) {
    figs.push({
      key: 'cpuPerRequest',
      label: `CPU µs / request (max_tokens 1, C=${opts.shortConcurrency})`,
      unit: 'µs',
      values: perTarget(results, (r) => r.short?.cpu[SERVER]?.usPerRequest),
      goal: { op: '<=', value: 300, on: 'gateway', text: '≤ 300 µs' },
    });
  }
  if (has('streaming')) {
    for (const c of levels) {
      figs.push({
        key: `tokensPerSec.c${c}`,
        label: `tokens/s (C=${c}, max_tokens ${opts.maxTokens})`,
        unit: 'tok/s',
        values: perTarget(results, (r) => at(r, c)?.tokensPerSec),
        goal: { op: '>=', value: 0.9, on: 'ratio', text: 'gw ≥ 0.9× ceiling' },
      });
    }
  }
  if (has('prompt-cost')) {
    figs.push({
      key: 'promptOnLoopMs',
      label: `${opts.promptCostTokens}-tok prompt: event-loop ms (long − short)`,
      unit: 'ms',
      values: perTarget(results, (r) => {
        const l = loopMsPerRequest(r.promptCost?.long);
        const s = loopMsPerRequest(r.promptCost?.short);
        return l === undefined || s === undefined ? undefined : l - s;
      }),
      goal: { op: '<=', value: 0.5, on: 'gateway', text: '≤ 0.5 ms' },
    });
    figs.push({
      key: 'promptWallP50Ms',
      label: `${opts.promptCostTokens}-tok prompt: wall ms (TTFT p50 long − short)`,
      unit: 'ms',
      values: perTarget(results, (r) => (r.promptCost ? r.promptCost.long.ttft.p50 - r.promptCost.short.ttft.p50 : undefined)),
      details: Object.fromEntries(
        Object.entries(results)
          .filter(([, r]) => r?.promptCost)
          .map(([t, r]) => [t, `TTFT p50/p99 ${r!.promptCost!.long.ttft.p50.toFixed(1)}/${r!.promptCost!.long.ttft.p99.toFixed(1)} ms`]),
      ),
      goal: { op: '<=', value: 3, on: 'gateway', text: '≤ 3 ms' },
    });
  }
  if (has('soak') && opts.soakRequests > 0) {
    figs.push({
      key: 'rssSoakRatio',
      label: `RSS after ${opts.soakRequests} short requests ÷ after warm-up`,
      unit: '×',
      values: perTarget(results, (r) => (r.soak ? r.soak.rssAfterMB / r.soak.rssWarmMB : undefined)),
      details: Object.fromEntries(
        Object.entries(results)
          .filter(([, r]) => r?.soak)
          .map(([t, r]) => [t, `${r!.soak!.rssWarmMB.toFixed(0)}→${r!.soak!.rssAfterMB.toFixed(0)} MB, N=${r!.soak!.phase.ok}`]),
      ),
      goal: { op: '<=', value: 1.3, on: 'gateway', text: '≤ 1.3×' },
    });
  }
  if (has('streaming') && levels.length > 0) {
    const c256 = nearest(levels, 256);
    figs.push({
      key: 'loopDelayP99',
      label: `event-loop delay p99 ms (C=${c256})`,
      unit: 'ms',
      values: perTarget(results, (r) => at(r, c256)?.loop?.delayP99Ms ?? undefined),
      goal: { op: '<=', value: 5, on: 'gateway', text: '≤ 5 ms' },
    });
  }
  if (has('long-prompt')) {
    // Labels stay short; the long-prompt table's title gives the scenario's parameters.
    const s = `${opts.longStreams} streams`;
    const plus = `+ long prompts C=${opts.longConcurrency}`;
    figs.push({ key: 'bgItlP99Alone', label: `${s}: ITL p99 ms, alone`, unit: 'ms', values: perTarget(results, (r) => r.longPrompt?.alone.bgItl.p99) });
    figs.push({ key: 'bgItlP99WithLong', label: `${s}: ITL p99 ms, ${plus}`, unit: 'ms', values: perTarget(results, (r) => r.longPrompt?.withLong.bgItl.p99) });
    figs.push({ key: 'bgGapP99Alone', label: `${s}: gap p99 ms, alone`, unit: 'ms', values: perTarget(results, (r) => r.longPrompt?.alone.bgGap.p99) });
    figs.push({ key: 'bgGapP99WithLong', label: `${s}: gap p99 ms, ${plus}`, unit: 'ms', values: perTarget(results, (r) => r.longPrompt?.withLong.bgGap.p99) });
  }
  return figs;
}

/** Whether the gateway meets the figure's goal; null when there is no goal or no value. */
export function meetsGoal(f: Figure): boolean | null {
  if (!f.goal) return null;
  const g = f.values.gateway;
  const v = f.goal.on === 'gateway' ? g : g !== undefined && f.values.ceiling ? g / f.values.ceiling : undefined;
  if (v === undefined || !Number.isFinite(v)) return null;
  return f.goal.op === '<=' ? v <= f.goal.value : v >= f.goal.value;
}
