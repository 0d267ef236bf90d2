/**
 * The figures issue 30 judges per-request and per-stream cost by, each next to its bare-Node
 * ceiling measured in the same run, with the issue's goals. Printed as the closing table
 * (report-issue.ts) and written to --json as `issue30`.
 */
import type { BenchOptions, Target } from './args.js';
import type { Figure } from './figures.js';
import type { GenerateCell } from './generate-stream.js';
import type { TargetResults } from './run-target.js';
import { SERVER } from './targets/target.js';

function perTarget(results: Partial<Record<Target, TargetResults>>, f: (r: TargetResults) => number | null | undefined): Partial<Record<Target, number>> {
  const out: Partial<Record<Target, number>> = {};
  for (const [t, r] of Object.entries(results) as [Target, TargetResults][]) {
    const v = f(r);
    if (v !== undefined && v !== null && Number.isFinite(v)) out[t] = v;
  }
  return out;
}

function detailsOf(results: Partial<Record<Target, TargetResults>>, f: (r: TargetResults) => string | null): Partial<Record<Target, string>> {
  const out: Partial<Record<Target, string>> = {};
  for (const [t, r] of Object.entries(results) as [Target, TargetResults][]) {
    const d = f(r);
    if (d) out[t] = d;
  }
  return out;
}

const cell = (cells: GenerateCell[] | null | undefined, n: number, incremental: boolean) =>
  cells?.find((c) => c.tokensPerStream === n && c.incremental === incremental);

/** µs per token at the longest length ÷ at the shortest, for one mode. */
export function generateGrowth(cells: GenerateCell[] | null | undefined, lengths: number[], incremental: boolean): number | undefined {
  const lo = cell(cells, Math.min(...lengths), incremental);
  const hi = cell(cells, Math.max(...lengths), incremental);
  return lo && hi ? hi.cpuUsPerToken / lo.cpuUsPerToken : undefined;
}

export function issue30Figures(opts: BenchOptions, results: Partial<Record<Target, TargetResults>>): Figure[] {
  const figs: Figure[] = [];
  const has = (p: BenchOptions['phases'][number]) => opts.phases.includes(p);
  if (has('short')) {
    figs.push({
      key: 'i30.cpuPerShortRequest',
      label: `CPU µs / short request (max_tokens 1, C=${opts.shortConcurrency}; ceiling: burst)`,
      unit: 'µs',
      values: perTarget(results, (r) => r.short?.cpu[SERVER]?.usPerRequest),
      goal: { op: '<=', value: 2.5, on: 'ratio', text: '≤ 2.5× ceiling' },
    });
  }
  const p = `${opts.pacedStreams} paced streams, ${opts.pacedStepMs} ms steps`;
  if (has('paced')) {
    figs.push({
      key: 'i30.pacedCpuPerToken',
      label: `${p}: CPU µs / token`,
      unit: 'µs',
      values: perTarget(results, (r) => r.paced?.cpu[SERVER]?.usPerToken),
      details: detailsOf(results, (r) =>
        r.paced ? `${r.paced.cpu[SERVER].util.toFixed(2)} cores, client ${r.paced.cpu.client?.util.toFixed(2) ?? '-'} cores` : null,
      ),
      goal: { op: '<=', value: 1.2, on: 'ratio', text: '≤ 1.2× ceiling' },
    });
    figs.push({
      key: 'i30.pacedRssPerStream',
      label: `${p}: RSS KB / open stream`,
      unit: 'KB',
      values: perTarget(results, (r) => r.paced?.rssPerStreamKB),
      details: detailsOf(results, (r) => (r.paced ? `${r.paced.rssPreMB.toFixed(0)} → ${r.paced.rssOpenMB.toFixed(0)} MB open` : null)),
      goal: { op: '<=', value: 1.5, on: 'ratio', text: '≤ 1.5× ceiling' },
    });
    figs.push({
      key: 'i30.pacedRssReturned',
      label: `${p}: RSS ${opts.pacedIdleSec} s after ÷ before`,
      unit: '×',
      values: perTarget(results, (r) => (r.paced ? r.paced.rssIdleMB / r.paced.rssPreMB : undefined)),
      details: detailsOf(results, (r) =>
        r.paced ? `${r.paced.rssPreMB.toFixed(0)} → ${r.paced.rssEndMB.toFixed(0)} at the streams' end → ${r.paced.rssIdleMB.toFixed(0)} MB` : null,
      ),
      goal: { op: '<=', value: 1.2, on: 'gateway', text: '≤ 1.2× (within 20 %)' },
    });
    figs.push({ key: 'i30.pacedLoopDelayP99', label: `${p}: loop delay p99 ms`, unit: 'ms', values: perTarget(results, (r) => r.paced?.loop?.delayP99Ms) });
    figs.push({ key: 'i30.pacedGapP99', label: `${p}: inter-token gap p99 ms`, unit: 'ms', values: perTarget(results, (r) => r.paced?.gap.p99) });
    figs.push({ key: 'i30.pacedTtftP50', label: `${p}: TTFT p50 ms`, unit: 'ms', values: perTarget(results, (r) => r.paced?.ttft.p50) });
    figs.push({
      key: 'i30.pacedTokPerStream',
      label: `${p}: tokens/s per stream`,
      unit: 'tok/s per stream',
      values: perTarget(results, (r) => r.paced?.tokensPerStreamPerSec),
    });
  }
  if (has('arrivals')) {
    const a = `${opts.arrivals} arrivals in one burst`;
    figs.push({
      key: 'i30.arrivalsTtftP50',
      label: `${a}: TTFT p50 ms`,
      unit: 'ms',
      values: perTarget(results, (r) => r.arrivals?.ttft.p50),
      goal: { op: '<=', value: 2, on: 'ratio', text: '≤ 2× ceiling' },
    });
    figs.push({
      key: 'i30.arrivalsFirstTtftP50',
      label: `${a}: TTFT p50 ms of the first burst on the target (V8 still compiling its path)`,
      unit: 'ms',
      values: perTarget(results, (r) => r.arrivals?.firstBurst?.ttft.p50),
    });
    figs.push({ key: 'i30.arrivalsTtftP99', label: `${a}: TTFT p99 ms`, unit: 'ms', values: perTarget(results, (r) => r.arrivals?.ttft.p99) });
    figs.push({
      key: 'i30.arrivalsNoHead',
      label: `${a}: no response head in ${opts.arrivalsTimeoutSec} s`,
      unit: 'count',
      values: perTarget(results, (r) => r.arrivals?.noHead),
      goal: { op: '<=', value: 0, on: 'gateway', text: 'none' },
    });
  }
  if (has('long-prompt')) {
    const lp = `${Math.round(opts.longPromptTokens / 1000)}k-tok prompts beside ${opts.longStreams} streams`;
    figs.push({
      key: 'i30.longPromptTurnMax',
      label: `${lp}: longest loop turn ms`,
      unit: 'ms',
      values: perTarget(results, (r) => r.longPrompt?.withLong.loop?.turnMaxMs),
      details: detailsOf(results, (r) =>
        r.longPrompt?.withLong.loop
          ? `streams alone ${r.longPrompt.alone.loop?.turnMaxMs?.toFixed(1) ?? '-'} ms; loop delay max ${r.longPrompt.withLong.loop.delayMaxMs?.toFixed(1) ?? '-'} ms`
          : null,
      ),
      goal: { op: '<=', value: 5, on: 'gateway', text: '≤ 5 ms' },
    });
    figs.push({
      key: 'i30.longPromptGapRatio',
      label: `${lp}: gap p99 with ÷ without`,
      unit: '×',
      values: perTarget(results, (r) => (r.longPrompt ? r.longPrompt.withLong.bgGap.p99 / r.longPrompt.alone.bgGap.p99 : undefined)),
      details: detailsOf(results, (r) =>
        r.longPrompt ? `${r.longPrompt.alone.bgGap.p99.toFixed(1)} → ${r.longPrompt.withLong.bgGap.p99.toFixed(1)} ms, ${r.longPrompt.withLong.long?.ok ?? 0} long prompts` : null,
      ),
      goal: { op: '<=', value: 1.2, on: 'gateway', text: '≤ 1.2×' },
    });
  }
  if (has('generate') && opts.generateLengths.length > 1) {
    const lo = Math.min(...opts.generateLengths);
    const hi = Math.max(...opts.generateLengths);
    for (const incremental of [true, false]) {
      figs.push({
        key: incremental ? 'i30.generateIncrementalGrowth' : 'i30.generateCumulativeGrowth',
        label: `/generate ${incremental ? 'incremental' : 'cumulative'}: µs/token at ${hi} ÷ at ${lo} tokens`,
        unit: '×',
        values: perTarget(results, (r) => generateGrowth(r.generate, opts.generateLengths, incremental)),
        details: detailsOf(results, (r) => {
          const a = cell(r.generate, lo, incremental);
          const b = cell(r.generate, hi, incremental);
          return a && b ? `${a.cpuUsPerToken.toFixed(1)} → ${b.cpuUsPerToken.toFixed(1)} µs/token, ${a.bytesPerToken.toFixed(0)} → ${b.bytesPerToken.toFixed(0)} B/token` : null;
        }),
        goal: incremental ? { op: '<=', value: 1.2, on: 'gateway', text: '≤ 1.2× (flat)' } : undefined,
      });
    }
  }
  return figs;
}
