/**
 * The printed tables: one per measured phase with the targets side by side (gateway, http-ceiling,
 * direct, and the gateway's ratio to each), one for the long-prompt scenario, and the final table
 * of issue 17's figures (report-issue.ts).
 */
import { TARGET_LABEL, type Target } from './args.js';
import type { LongPromptResult, WindowResult } from './long-prompt.js';
import type { MeasuredPhase } from './run-target.js';
import { fmtMs, fmtNum, fmtRatio } from './stats.js';
import { CLIENT, ENGINE, MACHINE, SERVER } from './targets/target.js';

export interface Column {
  target: Target;
  r: MeasuredPhase | undefined;
}

type Cells = string[];

const mbText = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : '-');
const opt = (v: number | null | undefined, f: (x: number) => string) => (v === null || v === undefined || !Number.isFinite(v) ? '-' : f(v));

interface RowDef {
  label: string;
  cell: (r: MeasuredPhase) => string;
  /** A number to form gateway ÷ other ratios from. */
  num?: (r: MeasuredPhase) => number | null | undefined;
}

const cpuRow = (name: string, what: string, key: 'usPerToken' | 'usPerRequest' | 'util', digits: number): RowDef => ({
  label: `${what}`,
  cell: (r) => opt(r.cpu[name]?.[key], (v) => fmtNum(v, digits)),
  num: key === 'util' ? undefined : (r) => r.cpu[name]?.[key],
});

const ROWS: RowDef[] = [
  { label: 'requests ok/issued', cell: (r) => `${r.ok}/${r.issued}${r.capped ? ' (capped)' : ''}` },
  { label: 'wall s', cell: (r) => r.wallSec.toFixed(2) },
  { label: 'tokens/s', cell: (r) => fmtNum(r.tokensPerSec), num: (r) => r.tokensPerSec },
  { label: 'requests/s', cell: (r) => fmtNum(r.wallSec > 0 ? r.ok / r.wallSec : Number.NaN), num: (r) => r.ok / r.wallSec },
  { label: 'token events/token', cell: (r) => (r.tokens > 0 ? (r.events / r.tokens).toFixed(2) : '-') },
  { label: 'tokens/arrival', cell: (r) => (r.arrivals > 0 ? (r.tokens / r.arrivals).toFixed(2) : '-') },
  { label: 'TTFT p50 ms', cell: (r) => fmtMs(r.ttft.p50), num: (r) => r.ttft.p50 },
  { label: 'TTFT p99 ms', cell: (r) => fmtMs(r.ttft.p99), num: (r) => r.ttft.p99 },
  { label: 'ITL p50 ms', cell: (r) => fmtMs(r.itl.p50), num: (r) => r.itl.p50 },
  { label: 'ITL p99 ms', cell: (r) => fmtMs(r.itl.p99), num: (r) => r.itl.p99 },
  { label: 'TPOT mean ms', cell: (r) => fmtMs(r.tpot.mean) },
  { label: 'e2e p50 ms', cell: (r) => fmtMs(r.e2e.p50) },
  cpuRow(SERVER, 'server CPU µs/token', 'usPerToken', 1),
  cpuRow(SERVER, 'server CPU µs/request', 'usPerRequest', 0),
  cpuRow(SERVER, 'server CPU cores', 'util', 2),
  { label: 'server loop delay p50 ms', cell: (r) => opt(r.loop?.delayP50Ms, fmtMs) },
  { label: 'server loop delay p99 ms', cell: (r) => opt(r.loop?.delayP99Ms, fmtMs), num: (r) => r.loop?.delayP99Ms },
  { label: 'server loop delay max ms', cell: (r) => opt(r.loop?.delayMaxMs, fmtMs) },
  { label: 'server loop busy', cell: (r) => opt(r.loop?.utilization, (v) => `${(v * 100).toFixed(0)}%`) },
  { label: 'server GC pauses % of wall', cell: (r) => opt(r.loop ? (100 * r.loop.gcMs) / r.loop.windowMs : null, (v) => `${v.toFixed(1)}%`) },
  { label: 'server GC pause max ms', cell: (r) => opt(r.loop?.gcMaxMs, fmtMs) },
  { label: 'server loop ms/request', cell: (r) => opt(r.loop && r.ok > 0 ? r.loop.busyMs / r.ok : null, (v) => v.toFixed(3)) },
  { label: 'server RSS MB before→after', cell: (r) => `${mbText(r.rssBeforeMB)}→${mbText(r.rssAfterMB)}` },
  cpuRow(ENGINE, 'engine CPU µs/token', 'usPerToken', 1),
  cpuRow(ENGINE, 'engine CPU cores', 'util', 2),
  cpuRow(CLIENT, 'client CPU µs/token', 'usPerToken', 1),
  cpuRow(CLIENT, 'client CPU cores', 'util', 2),
  { label: 'other processes cores', cell: (r) => others(r.cpu) },
  { label: 'machine busy / cores', cell: (r) => (r.cpu[MACHINE] ? `${r.cpu[MACHINE].util.toFixed(2)}/${r.cores}` : '-') },
  { label: 'load avg (1 min)', cell: (r) => r.loadAvg.toFixed(2) },
];

function others(cpu: Record<string, { util: number }>): string {
  if (!cpu[MACHINE]) return '-';
  let ours = 0;
  for (const [k, v] of Object.entries(cpu)) if (k !== MACHINE) ours += v.util;
  return Math.max(0, cpu[MACHINE].util - ours).toFixed(2);
}

function ratio(a: number | null | undefined, b: number | null | undefined): string {
  return a === null || a === undefined || b === null || b === undefined ? '' : fmtRatio(a, b);
}

export function table(head: Cells, rows: Cells[], widths: number[]): string {
  const line = (cells: Cells) => '  ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[0]) : c.padStart(widths[i] ?? 12))).join('');
  const total = widths.reduce((a, b) => a + b, 0);
  return [line(head), `  ${'-'.repeat(total)}`, ...rows.map(line)].join('\n');
}

/** One phase, the targets side by side, then gateway ÷ each other target that ran it. */
export function formatPhaseTable(title: string, cols: Column[]): string {
  const present = cols.filter((c) => c.r);
  if (present.length === 0) return '';
  const gw = cols.find((c) => c.target === 'gateway')?.r;
  const others = present.filter((c) => c.target !== 'gateway');
  const head = ['', ...present.map((c) => TARGET_LABEL[c.target]), ...(gw ? others.map((c) => `gw÷${c.target === 'ceiling' ? 'ceil' : c.target}`) : [])];
  const rows = ROWS.map((def) => [
    def.label,
    ...present.map((c) => def.cell(c.r!)),
    ...(gw ? others.map((c) => (def.num ? ratio(def.num(gw), def.num(c.r!)) : '')) : []),
  ]);
  const widths = [28, ...present.map(() => 15), ...(gw ? others.map(() => 10) : [])];
  const errs = present.filter((c) => c.r!.errors.length > 0).map((c) => `  ${TARGET_LABEL[c.target]} errors (${c.r!.failed}): ${c.r!.errors.join(' | ')}`);
  return [title, table(head, rows, widths), ...errs].join('\n');
}

/** The long-prompt scenario: per target, the background streams alone and with long prompts. */
export function formatLongPromptTable(title: string, runs: { target: Target; r: LongPromptResult }[]): string {
  if (runs.length === 0) return '';
  const cols: { head: string; w: WindowResult }[] = [];
  for (const { target, r } of runs) {
    cols.push({ head: `${TARGET_LABEL[target]} alone`, w: r.alone });
    cols.push({ head: `+ long prompts`, w: r.withLong });
  }
  const rowDefs: [string, (w: WindowResult) => string][] = [
    ['wall s', (w) => w.wallSec.toFixed(2)],
    ['background tokens/s', (w) => fmtNum(w.bgTokensPerSec)],
    ['background ITL p50 ms', (w) => fmtMs(w.bgItl.p50)],
    ['background ITL p90 ms', (w) => fmtMs(w.bgItl.p90)],
    ['background ITL p99 ms', (w) => fmtMs(w.bgItl.p99)],
    ['background gap p50 ms', (w) => fmtMs(w.bgGap.p50)],
    ['background gap p99 ms', (w) => fmtMs(w.bgGap.p99)],
    ['background gap max ms', (w) => fmtMs(w.bgGap.max)],
    ['long prompts ok (failed)', (w) => (w.long ? `${w.long.ok} (${w.long.failed})` : '-')],
    ['long prompts/s', (w) => (w.long ? w.long.perSec.toFixed(1) : '-')],
    ['long TTFT p50 ms', (w) => (w.long ? fmtMs(w.long.ttft.p50) : '-')],
    ['long TTFT p99 ms', (w) => (w.long ? fmtMs(w.long.ttft.p99) : '-')],
    ['server CPU cores', (w) => opt(w.cpu[SERVER]?.util, (v) => v.toFixed(2))],
    ['server loop delay p99 ms', (w) => opt(w.loop?.delayP99Ms, fmtMs)],
    ['server loop delay max ms', (w) => opt(w.loop?.delayMaxMs, fmtMs)],
    ['server longest turn ms (CPU)', (w) => opt(w.loop?.turnMaxMs, fmtMs)],
    ['server longest core wait ms', (w) => opt(w.loop?.turnWaitMaxMs, fmtMs)],
    ['server loop busy', (w) => opt(w.loop?.utilization, (v) => `${(v * 100).toFixed(0)}%`)],
    ['server GC pause max ms', (w) => opt(w.loop?.gcMaxMs, (v) => `${fmtMs(v)}${w.loop?.gcMaxKind ? ` ${w.loop.gcMaxKind}` : ''}`)],
    ['client loop delay max ms', (w) => opt(w.clientLoop?.delayMaxMs, fmtMs)],
    ['client GC pause max ms', (w) => opt(w.clientLoop?.gcMaxMs, fmtMs)],
    ['other processes cores', (w) => others(w.cpu)],
  ];
  const rows = rowDefs.map(([label, f]) => [label, ...cols.map((c) => f(c.w))]);
  const errs = runs.filter((x) => x.r.errors.length > 0).map((x) => `  ${TARGET_LABEL[x.target]} errors: ${x.r.errors.join(' | ')}`);
  return [title, table(['', ...cols.map((c) => c.head)], rows, [28, ...cols.map(() => 20)]), ...errs].join('\n');
}

export function footnotes(longMaxTokens: number, ceilingMode: string): string {
  return `Notes:
  Targets. gateway: smg launch + a mock engine (zero delay for short, generate and issue 17's phases;
  stepping every --paced-step-ms / --long-token-delay-ms on fresh targets for paced, arrivals and
  long-prompt). http-ceiling: a bare node:http server in its own process writing the gateway's own
  SSE frames (captured from one real response; shaped the same when no gateway runs), one res.write
  per frame, no engine: ${ceilingMode} mode for the streaming phases${ceilingMode === 'burst' ? " (a response's frames back to back)" : ' (one frame per stream per event-loop turn)'},
  burst for short requests, and one frame per stream per step on the paced targets. direct: the
  in-process engine client against a mock engine (no HTTP); its "server" is this bench process.
  server = the serving process (gateway / ceiling server / this bench for direct); CPU is utime +
  stime from /proc/<pid>/stat (10 ms ticks) over the phase, all threads; RSS is VmRSS from
  /proc/<pid>/status. Loop figures come from scripts/bench/loop-probe.mjs preloaded into the server
  (node --import): delay = how late a 1 ms timer ran (monitorEventLoopDelay, resolution
  subtracted; it includes time the process waited for a core); longest turn (long-prompt only) = the
  most main-thread CPU (schedstat) between two runs of a 1 ms timer, i.e. the longest the loop was
  held in one piece, without the waits for a core; busy = eventLoopUtilization (work in worker threads is not
  counted); ms/request = busy ÷ requests; GC = the main thread's garbage-collection pauses.
  CPU "cores" = CPU seconds ÷ wall seconds. Two cores are shared by client, server and engine, and by
  whatever else runs here ("other processes"): if that is large, rerun; ratios are steadier than
  absolutes.
  TTFT = request sent → first token. ITL: tokens that reach the client in one event-loop turn are
  one arrival; the gap between a stream's arrivals is spread over its tokens (one sample per
  token), so mean ITL ≈ TPOT. "gap" (paced and long-prompt) is the whole time between a stream's
  arrivals, one sample per arrival: a stall while the engine keeps producing shows in the gap, not
  in the per-token ITL (the tokens then arrive together and the stall is spread over them).
  Paced: CPU per token and the loop over the window with every stream open; RSS per open stream =
  (median RSS in the window − RSS before the phase, after a warm-up at C = 32 and two full GCs of the
  server through the loop probe) ÷ streams. The client
  closes its connections when the streams end, then the target idles. Arrivals: issued in one loop
  on new connections, twice; the second burst is measured, the first one's TTFT p50 is shown beside
  it; "no response head" counts requests without one by --arrivals-timeout.
  At token delay 0 the engine outruns the gateway, so TTFT/e2e at high C are queueing in front of
  the gateway (≈ C × max_tokens ÷ tokens/s). Prompt cost: C=1, max_tokens ${longMaxTokens}; "long − short"
  of TTFT p50 and of main-thread busy ms per request is what a ~2k-token prompt adds.`;
}
