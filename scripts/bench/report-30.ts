/** The tables of issue 30's phases: paced streams, the arrival burst, /generate streaming. */
import { TARGET_LABEL, type Target } from './args.js';
import type { GenerateCell } from './generate-stream.js';
import type { LoopStats } from './loop-stats.js';
import type { ArrivalsResult, PacedResult } from './paced.js';
import type { CpuUse } from './phase.js';
import { table } from './report.js';
import { fmtMs, fmtNum } from './stats.js';
import { CLIENT, ENGINE, MACHINE, SERVER } from './targets/target.js';

const opt = (v: number | null | undefined, f: (x: number) => string) => (v === null || v === undefined || !Number.isFinite(v) ? '-' : f(v));
const cores = (cpu: Record<string, CpuUse>, name: string) => opt(cpu[name]?.util, (v) => v.toFixed(2));

function others(cpu: Record<string, CpuUse>): string {
  if (!cpu[MACHINE]) return '-';
  let ours = 0;
  for (const [k, v] of Object.entries(cpu)) if (k !== MACHINE) ours += v.util;
  return Math.max(0, cpu[MACHINE].util - ours).toFixed(2);
}

const loopRows = <T extends { loop: LoopStats | null }>(): [string, (r: T) => string][] => [
  ['server loop delay p99 ms', (r) => opt(r.loop?.delayP99Ms, fmtMs)],
  ['server loop delay max ms', (r) => opt(r.loop?.delayMaxMs, fmtMs)],
  ['server loop busy', (r) => opt(r.loop?.utilization, (v) => `${(v * 100).toFixed(0)}%`)],
  ['server GC pauses % / max ms', (r) => (r.loop ? `${((100 * r.loop.gcMs) / r.loop.windowMs).toFixed(1)}% / ${fmtMs(r.loop.gcMaxMs)}` : '-')],
];

function sideBySide<T>(title: string, runs: { target: Target; r: T }[], rows: [string, (r: T) => string, ((r: T) => number | undefined)?][]): string {
  if (runs.length === 0) return '';
  const gw = runs.find((x) => x.target === 'gateway');
  const ceil = runs.find((x) => x.target === 'ceiling');
  const withRatio = gw && ceil;
  const head = ['', ...runs.map((x) => TARGET_LABEL[x.target]), ...(withRatio ? ['gw÷ceil'] : [])];
  const body = rows.map(([label, f, num]) => {
    let ratio = '';
    if (withRatio && num) {
      const a = num(gw.r);
      const b = num(ceil.r);
      if (a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) && b !== 0) ratio = `${(a / b).toFixed(2)}×`;
    }
    return [label, ...runs.map((x) => f(x.r)), ...(withRatio ? [ratio] : [])];
  });
  return [title, table(head, body, [30, ...runs.map(() => 18), ...(withRatio ? [10] : [])])].join('\n');
}

export function formatPacedTable(title: string, runs: { target: Target; r: PacedResult }[]): string {
  const errs = runs.filter((x) => x.r.failed > 0).map((x) => `  ${TARGET_LABEL[x.target]} errors (${x.r.failed}): ${x.r.errors.join(' | ')}`);
  const t = sideBySide<PacedResult>(title, runs, [
    ['streams ok/opened', (r) => `${r.ok}/${r.streams}`],
    ['all first tokens, ms after ramp', (r) => fmtMs(r.firstTokenLagMs), (r) => r.firstTokenLagMs],
    ['started late / ended early', (r) => `${r.lateStarts} / ${r.endedEarly}`],
    ['window s', (r) => r.windowSec.toFixed(2)],
    ['tokens/s per stream', (r) => r.tokensPerStreamPerSec.toFixed(2), (r) => r.tokensPerStreamPerSec],
    ['TTFT p50 ms', (r) => fmtMs(r.ttft.p50), (r) => r.ttft.p50],
    ['TTFT p99 ms', (r) => fmtMs(r.ttft.p99), (r) => r.ttft.p99],
    ['gap p50 ms', (r) => fmtMs(r.gap.p50), (r) => r.gap.p50],
    ['gap p99 ms', (r) => fmtMs(r.gap.p99), (r) => r.gap.p99],
    ['gap max ms', (r) => fmtMs(r.gap.max)],
    ['server CPU µs/token', (r) => opt(r.cpu[SERVER]?.usPerToken, (v) => fmtNum(v, 1)), (r) => r.cpu[SERVER]?.usPerToken],
    ['server CPU cores', (r) => cores(r.cpu, SERVER)],
    ...loopRows<PacedResult>(),
    ['server RSS MB before', (r) => r.rssPreMB.toFixed(0)],
    ['server RSS MB open (median/max)', (r) => `${r.rssOpenMB.toFixed(0)}/${r.rssOpenMaxMB.toFixed(0)}`],
    ['server RSS KB per open stream', (r) => fmtNum(r.rssPerStreamKB, 1), (r) => r.rssPerStreamKB],
    ['server RSS MB streams ended', (r) => r.rssEndMB.toFixed(0)],
    ['server RSS MB after idle', (r) => `${r.rssIdleMB.toFixed(0)} (${r.idleSec} s)`],
    ['RSS after idle ÷ before', (r) => `${(r.rssIdleMB / r.rssPreMB).toFixed(2)}×`],
    ['engine CPU cores', (r) => cores(r.cpu, ENGINE)],
    ['client CPU cores', (r) => cores(r.cpu, CLIENT)],
    ['client loop delay p99 ms', (r) => opt(r.clientLoop?.delayP99Ms, fmtMs)],
    ['other processes cores', (r) => others(r.cpu)],
    ['machine busy cores', (r) => cores(r.cpu, MACHINE)],
  ]);
  return [t, ...errs].filter(Boolean).join('\n');
}

export function formatArrivalsTable(title: string, runs: { target: Target; r: ArrivalsResult }[]): string {
  const errs = runs.filter((x) => x.r.failed > 0).map((x) => `  ${TARGET_LABEL[x.target]} errors (${x.r.failed}): ${x.r.errors.join(' | ')}`);
  const t = sideBySide<ArrivalsResult>(title, runs, [
    ['requests ok/issued', (r) => `${r.ok}/${r.requests}`],
    ['no response head', (r) => String(r.noHead)],
    ['first burst: ok/issued', (r) => (r.firstBurst ? `${r.firstBurst.ok}/${r.firstBurst.ok + r.firstBurst.failed}` : '-')],
    ['first burst: TTFT p50 ms', (r) => opt(r.firstBurst?.ttft.p50, fmtMs), (r) => r.firstBurst?.ttft.p50],
    ['client issue loop ms', (r) => fmtMs(r.issueMs)],
    ['response head p50 ms', (r) => fmtMs(r.head.p50), (r) => r.head.p50],
    ['TTFT p50 ms', (r) => fmtMs(r.ttft.p50), (r) => r.ttft.p50],
    ['TTFT p99 ms', (r) => fmtMs(r.ttft.p99), (r) => r.ttft.p99],
    ['TTFT max ms', (r) => fmtMs(r.ttft.max), (r) => r.ttft.max],
    ['wall s (all done)', (r) => r.wallSec.toFixed(2)],
    ['server CPU µs/request', (r) => opt(r.cpu[SERVER]?.usPerRequest, (v) => fmtNum(v, 0)), (r) => r.cpu[SERVER]?.usPerRequest],
    ...loopRows<ArrivalsResult>(),
    ['client CPU cores', (r) => cores(r.cpu, CLIENT)],
    ['other processes cores', (r) => others(r.cpu)],
  ]);
  return [t, ...errs].filter(Boolean).join('\n');
}

export function formatGenerateTable(title: string, cells: GenerateCell[]): string {
  if (cells.length === 0) return '';
  const lengths = [...new Set(cells.map((c) => c.tokensPerStream))];
  const get = (n: number, inc: boolean) => cells.find((c) => c.tokensPerStream === n && c.incremental === inc);
  const rows = lengths.map((n) => {
    const cum = get(n, false);
    const inc = get(n, true);
    return [
      String(n),
      opt(cum?.cpuUsPerToken, (v) => v.toFixed(1)),
      opt(inc?.cpuUsPerToken, (v) => v.toFixed(1)),
      opt(cum?.bytesPerToken, (v) => v.toFixed(0)),
      opt(inc?.bytesPerToken, (v) => v.toFixed(0)),
    ];
  });
  return [title, table(['tokens/stream', 'cumulative µs/tok', 'incremental µs/tok', 'cumulative B/tok', 'incremental B/tok'], rows, [16, 20, 20, 20, 20])].join('\n');
}
