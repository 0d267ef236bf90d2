/** The printed tables: one per concurrency level (gateway vs direct vs ratio), then a summary. */
import type { PhaseResult } from './phase.js';
import { fmtMs, fmtNum, fmtRatio } from './stats.js';

export interface ReportContext {
  maxTokens: number;
  promptTokens: number;
  mockMode: string;
  tokenDelayMs: number;
}

type Row = [label: string, gw: string, direct: string, ratio: string];

function cpuCells(r: PhaseResult | undefined, name: string): [string, string] {
  const c = r?.cpu[name];
  if (!c) return ['-', '-'];
  return [fmtNum(c.usPerToken, 1), `${c.util.toFixed(2)}`];
}

function ratioOf(g: number | undefined, d: number | undefined): string {
  return g === undefined || d === undefined ? '' : fmtRatio(g, d);
}

export function formatPhaseTable(c: number, gw: PhaseResult | undefined, direct: PhaseResult | undefined, ctx: ReportContext): string {
  const rows: Row[] = [];
  const both = (label: string, f: (r: PhaseResult) => string, ratio?: (r: PhaseResult) => number) =>
    rows.push([
      label,
      gw ? f(gw) : '-',
      direct ? f(direct) : '-',
      ratio && gw && direct ? ratioOf(ratio(gw), ratio(direct)) : '',
    ]);
  both('requests ok/issued', (r) => `${r.ok}/${r.issued}${r.capped ? ' (capped)' : ''}`);
  both('wall s', (r) => r.wallSec.toFixed(2));
  both('tokens', (r) => fmtNum(r.tokens));
  both('tokens/s (aggregate)', (r) => fmtNum(r.tokensPerSec), (r) => r.tokensPerSec);
  both('token events/token', (r) => (r.tokens > 0 ? (r.events / r.tokens).toFixed(2) : '-'));
  both('tokens/arrival', (r) => (r.arrivals > 0 ? (r.tokens / r.arrivals).toFixed(2) : '-'));
  both('TTFT p50 ms', (r) => fmtMs(r.ttft.p50), (r) => r.ttft.p50);
  both('TTFT p90 ms', (r) => fmtMs(r.ttft.p90), (r) => r.ttft.p90);
  both('TTFT p99 ms', (r) => fmtMs(r.ttft.p99), (r) => r.ttft.p99);
  both('ITL p50 ms', (r) => fmtMs(r.itl.p50), (r) => r.itl.p50);
  both('ITL p90 ms', (r) => fmtMs(r.itl.p90), (r) => r.itl.p90);
  both('ITL p99 ms', (r) => fmtMs(r.itl.p99), (r) => r.itl.p99);
  both('TPOT mean ms', (r) => fmtMs(r.tpot.mean), (r) => r.tpot.mean);
  both('e2e p50 ms', (r) => fmtMs(r.e2e.p50), (r) => r.e2e.p50);
  const [gUs, gUtil] = cpuCells(gw, 'gateway');
  rows.push(['gateway CPU µs/token', gUs, '-', '']);
  rows.push(['gateway CPU cores', gUtil, '-', '']);
  const [egUs, egUtil] = cpuCells(gw, 'engine');
  const [edUs, edUtil] = cpuCells(direct, 'engine');
  rows.push(['engine CPU µs/token', egUs, edUs, '']);
  rows.push(['engine CPU cores', egUtil, edUtil, '']);
  const [bgUs, bgUtil] = cpuCells(gw, 'bench');
  const [bdUs, bdUtil] = cpuCells(direct, 'bench');
  rows.push(['bench CPU µs/token *', bgUs, bdUs, '']);
  rows.push(['bench CPU cores *', bgUtil, bdUtil, '']);
  const others = (r: PhaseResult | undefined) => {
    if (!r?.cpu.machine) return '-';
    let ours = 0;
    for (const [k, v] of Object.entries(r.cpu)) if (k !== 'machine') ours += v.util;
    return Math.max(0, r.cpu.machine.util - ours).toFixed(2);
  };
  rows.push(['other processes cores', others(gw), others(direct), '']);
  rows.push(['machine busy / cores', gw?.cpu.machine ? `${gw.cpu.machine.util.toFixed(2)}/${gw.cores}` : '-', direct?.cpu.machine ? `${direct.cpu.machine.util.toFixed(2)}/${direct.cores}` : '-', '']);
  rows.push(['load avg (1 min)', gw ? gw.loadAvg.toFixed(2) : '-', direct ? direct.loadAvg.toFixed(2) : '-', '']);

  const w = [24, 19, 19, 11];
  const line = (r: Row) => `  ${r[0].padEnd(w[0])}${r[1].padStart(w[1])}${r[2].padStart(w[2])}${r[3].padStart(w[3])}`;
  const out: string[] = [];
  out.push(`C = ${c}   (max_tokens ${ctx.maxTokens}, ignore_eos, prompt ${ctx.promptTokens} tokens, mock ${ctx.mockMode}, token delay ${ctx.tokenDelayMs} ms)`);
  out.push(line(['', 'gateway', 'direct', 'gw÷direct']));
  out.push(`  ${'-'.repeat(w.reduce((a, b) => a + b, 0))}`);
  for (const r of rows) out.push(line(r));
  for (const [name, r] of [['gateway', gw], ['direct', direct]] as const) {
    if (r && r.errors.length > 0) out.push(`  ${name} errors (${r.failed}): ${r.errors.join(' | ')}`);
  }
  return out.join('\n');
}

export function formatSummary(levels: number[], gw: Map<number, PhaseResult>, direct: Map<number, PhaseResult>): string {
  const out: string[] = [];
  const head = ['C', 'gw tok/s', 'direct tok/s', 'ratio', 'gw TTFT p50', 'dir TTFT p50', 'gw ITL p50', 'dir ITL p50', 'gw µs/tok', 'gw cores'];
  const w = [6, 12, 14, 8, 13, 13, 12, 12, 11, 10];
  const fmt = (cells: string[]) => '  ' + cells.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('');
  out.push('Summary (gateway ÷ direct throughput; latencies in ms)');
  out.push(fmt(head));
  for (const c of levels) {
    const g = gw.get(c);
    const d = direct.get(c);
    out.push(
      fmt([
        String(c),
        g ? fmtNum(g.tokensPerSec) : '-',
        d ? fmtNum(d.tokensPerSec) : '-',
        g && d ? fmtRatio(g.tokensPerSec, d.tokensPerSec) : '-',
        g ? fmtMs(g.ttft.p50) : '-',
        d ? fmtMs(d.ttft.p50) : '-',
        g ? fmtMs(g.itl.p50) : '-',
        d ? fmtMs(d.itl.p50) : '-',
        g?.cpu.gateway ? fmtNum(g.cpu.gateway.usPerToken, 1) : '-',
        g?.cpu.gateway ? g.cpu.gateway.util.toFixed(2) : '-',
      ]),
    );
  }
  return out.join('\n');
}

export const FOOTNOTES = `Notes:
  * bench = this process: the HTTP/SSE client in the gateway column; in the direct column it is the
    in-process engine client (ZMQ + msgpack decode) plus the load loop, i.e. the work the gateway
    itself would do minus HTTP, templating, detokenization and JSON/SSE framing.
  CPU "cores" = CPU seconds ÷ wall seconds (1.00 = one core saturated). The machine has few cores and
  the client, the gateway and the mock engine (which steps as fast as it can at token delay 0)
  compete for them, so a gateway near 1.00 core is CPU-bound, and the sum of the three columns
  near the core count means the box, not one process, is the limit. "other processes" is the rest
  of the machine's busy time during the phase (anything not spawned by this bench); if it is
  large, the numbers are contended and should be rerun on a quiet machine.
  TTFT = request sent → first content token. ITL: tokens that reach the client in one event-loop
  turn (one socket read of several SSE frames / one ZMQ message) are one arrival; the gap between
  a stream's arrivals is spread over the tokens of the later one (one sample per token), so mean
  ITL ≈ TPOT and p99 shows stalls; tokens/arrival shows how bursty delivery was.
  TPOT = (e2e − TTFT) ÷ (tokens − 1) per request. token events/token: SSE content chunks (gateway)
  or engine outputs (direct) per generated token.
  Saturation: at token delay 0 the mock engine produces tokens faster than the gateway can forward
  them, so from small C on the gateway's CPU is the bottleneck and the engine runs ahead up to the
  ZMQ high-water mark. TTFT/e2e at high C are then mostly queueing in front of the gateway
  (≈ C × max_tokens ÷ gateway tokens/s), not per-request overhead; measure added latency below
  capacity with --token-delay-ms (e.g. 10).`;
