/**
 * `npm run bench`: the gateway against a mock engine, next to a bare node:http server replaying
 * the gateway's SSE frames (http-ceiling) and the in-process engine client (direct). By default
 * issue 30's phases: CPU per short request, /generate streaming, many paced streams (CPU per token,
 * loop, gaps, RSS per open stream and returned when idle), an arrival burst and long prompts beside
 * paced streams, ending with issue 30's figures; `--phases all` adds issue 17's (throughput, soak,
 * prompt cost). See scripts/bench/args.ts (or --help).
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseBenchArgs, TARGET_LABEL, USAGE, type BenchOptions, type PhaseGroup, type Target } from './bench/args.js';
import { formatProfileSummary, summarizeProfile } from './bench/cpuprofile.js';
import { issueFigures } from './bench/figures.js';
import { issue30Figures } from './bench/figures-30.js';
import { runArrivals, runPaced, warmPaced } from './bench/paced.js';
import { installSignalHandlers, interrupted, stopAll } from './bench/procs.js';
import { footnotes, formatLongPromptTable, formatPhaseTable, type Column } from './bench/report.js';
import { formatIssueTable, ISSUE30_TITLE } from './bench/report-issue.js';
import { formatArrivalsTable, formatGenerateTable, formatPacedTable } from './bench/report-30.js';
import { emptyResults, runTarget, type MeasuredPhase, type TargetResults } from './bench/run-target.js';
import { synthesizeFrames, type SseFrames } from './bench/sse-frames.js';
import { startCeiling } from './bench/targets/ceiling.js';
import { startDirect } from './bench/targets/direct.js';
import { startGateway, type GatewayHandle } from './bench/targets/gateway.js';
import type { TargetHandle } from './bench/targets/target.js';
import { buildWorkloads, type Workloads } from './bench/workloads.js';
import { formatYardstick, measureYardstick } from './bench/yardstick.js';
import { tuneHeapGrowth } from '../src/util/heap-growth.js';

// This process is every phase's client (and the direct target's server): the gateway's own V8
// tuning, so its full GCs are as rare as the gateway's while it reads streams whose gaps it
// measures (in the long-prompt windows they were 8-17 ms each, the "client GC pause max" row).
tuneHeapGrowth();

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

/**
 * The gateway main thread's profile: node names them CPU.<date>.<time>.<pid>.<thread>.<seq>; thread
 * 0 is the main thread (tsx's module-loader worker writes a second, uninteresting one).
 */
async function gatewayProfile(dir: string, pid: number | null): Promise<string | null> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  const main = files.filter((f) => (pid === null || f.includes(`.${pid}.`)) && /\.0\.\d+\.cpuprofile$/.test(f));
  const pick = main.length > 0 ? main : files;
  return pick.length > 0 ? join(dir, pick[pick.length - 1]) : null;
}

interface RunInfo {
  results: Partial<Record<Target, TargetResults>>;
  promptTokens: number;
  longPromptTokens: number;
  framesSource: SseFrames['source'] | null;
  gatewayPid: number | null;
  perfSummary: string | null;
}

async function withTarget(start: () => Promise<TargetHandle>, opts: BenchOptions, groups: readonly PhaseGroup[]): Promise<TargetResults> {
  const t = await start();
  try {
    return await runTarget(t, opts, groups);
  } finally {
    await t.close();
  }
}

/** Issue 17's phases: only when one of them runs is its table printed. */
const ISSUE17_PHASES: readonly PhaseGroup[] = ['soak', 'streaming', 'prompt-cost'];

async function runAll(opts: BenchOptions, dir: string, w: Workloads): Promise<RunInfo> {
  const info: RunInfo = {
    results: {},
    promptTokens: w.promptTokenIds.length,
    longPromptTokens: w.longPromptTokens,
    framesSource: null,
    gatewayPid: null,
    perfSummary: null,
  };
  const has = (p: PhaseGroup) => opts.phases.includes(p);
  // With a paced long-prompt scenario, it runs on its own gateway + engine / ceiling afterwards.
  const pacedScenario = opts.longTokenDelayMs > 0 && has('long-prompt');
  // The paced phase and the arrival burst share one fresh target stepping every --paced-step-ms.
  const pacedGroups: PhaseGroup[] = opts.phases.filter((p) => p === 'paced' || p === 'arrivals');
  const mainGroups = opts.phases.filter((p) => !pacedGroups.includes(p) && !(pacedScenario && p === 'long-prompt'));
  // Each target's options name only its own phases (startGateway sends the ~131k-token check
  // request only to a gateway that runs the long-prompt scenario: its garbage would blur RSS).
  const mainOpts: BenchOptions = { ...opts, phases: mainGroups };
  const scenarioOpts: BenchOptions = { ...opts, phases: ['long-prompt'], tokenDelayMs: opts.longTokenDelayMs, perfFile: null, profileDir: null };
  const pacedOpts: BenchOptions = { ...opts, phases: pacedGroups, tokenDelayMs: opts.pacedStepMs, perfFile: null, profileDir: null };
  // The paced engine admits a whole arrival burst in one step (the default 8192-token budget would
  // spread 1,000 prefills over several steps, engine time the bare ceiling does not pay).
  const pacedEngineExtra = ['--max-num-batched-tokens', String(Math.max(8192, (opts.arrivals + opts.pacedStreams) * (w.promptTokenIds.length + 1)))];
  const resultsOf = (target: Target) => (info.results[target] ??= emptyResults(TARGET_LABEL[target]));
  const scenario = async (target: Target, start: () => Promise<TargetHandle>) => {
    if (!pacedScenario) return;
    log(`${TARGET_LABEL[target]}: long-prompt scenario on a fresh target paced at ${opts.longTokenDelayMs} ms per step`);
    const r = await withTarget(start, scenarioOpts, ['long-prompt']);
    resultsOf(target).longPrompt = r.longPrompt;
  };
  const paced = async (target: Target, start: () => Promise<TargetHandle>) => {
    if (pacedGroups.length === 0) return;
    const name = TARGET_LABEL[target];
    log(`${name}: paced target, one step per ${opts.pacedStepMs} ms`);
    const t = await start();
    try {
      await warmPaced(t, pacedOpts, name);
      // The burst is measured on the idle paced target, as documented, also when only `arrivals` is
      // asked for: it then meets the target in the state a full run (where the issue's figure comes
      // from) leaves it in. After just the warm-up (C = 32 on 32 connections, its heap then
      // collected) it would be the target's first use of many connections and of a large heap.
      if (pacedGroups.includes('paced') || pacedGroups.includes('arrivals')) {
        resultsOf(target).paced = await runPaced(t, pacedOpts, name);
        await t.alive();
      }
      if (pacedGroups.includes('arrivals')) {
        // One burst of the same shape first, so the measured one meets a target whose arrival path
        // has run before: the first burst on a fresh process pays for V8 compiling that path
        // (--trace-opt: 85-123 TurboFan compilations, 0.35-0.8 s of helper-thread CPU inside the
        // burst, on a box the client and the engine share), which the ceiling's few dozen lines of
        // JS do not. Both targets get it; its TTFT stays in the report as "first burst".
        const first = await runArrivals(t, pacedOpts, `${name} (first burst)`);
        await t.alive();
        const r = await runArrivals(t, pacedOpts, name);
        r.firstBurst = { ok: first.ok, failed: first.failed, ttft: first.ttft };
        resultsOf(target).arrivals = r;
        await t.alive();
      }
    } finally {
      await t.close();
    }
  };
  let frames: SseFrames | null = null;
  for (const target of opts.targets) {
    interrupted.signal.throwIfAborted();
    log(`=== ${TARGET_LABEL[target]} ===`);
    if (target === 'gateway') {
      if (mainGroups.length > 0) {
        const gw = await startGateway(mainOpts, dir, w);
        info.gatewayPid = gw.pid;
        info.promptTokens = gw.promptTokens;
        info.longPromptTokens = gw.longPromptTokens;
        frames = gw.frames;
        try {
          info.results.gateway = await runTarget(gw, opts, mainGroups);
        } finally {
          await gw.close();
          info.perfSummary = gw.perfSummary;
        }
      }
      await paced('gateway', () => startGateway(pacedOpts, dir, w, false, pacedEngineExtra));
      await scenario('gateway', async () => {
        const g: GatewayHandle = await startGateway(scenarioOpts, dir, w, false);
        info.longPromptTokens = g.longPromptTokens;
        return g;
      });
    } else if (target === 'ceiling') {
      if (!frames) {
        const texts = Array.from({ length: opts.maxTokens }, (_, i) => w.tokenText(i));
        frames = synthesizeFrames(opts.model, texts, w.promptTokenIds.length);
        log('no zero-delay gateway in this run: the http-ceiling replays synthesized frames of the same shape');
      }
      const f = frames;
      info.framesSource = f.source;
      if (mainGroups.length > 0) info.results.ceiling = await withTarget(() => startCeiling(mainOpts, dir, w, f), opts, mainGroups);
      await paced('ceiling', () => startCeiling(pacedOpts, dir, w, f, opts.pacedStepMs));
      await scenario('ceiling', () => startCeiling(scenarioOpts, dir, w, f, opts.longTokenDelayMs));
    } else {
      const groups = mainGroups.filter((p) => p !== 'long-prompt' && p !== 'prompt-cost' && p !== 'generate');
      if (groups.length > 0) info.results.direct = await withTarget(() => startDirect(opts, dir, w), opts, groups);
    }
  }
  return info;
}

function report(opts: BenchOptions, w: Workloads, info: RunInfo, seconds: number): string {
  const targets = opts.targets;
  const cols = (pick: (r: TargetResults) => MeasuredPhase | null | undefined): Column[] =>
    targets.map((t) => ({ target: t, r: info.results[t] ? (pick(info.results[t]!) ?? undefined) : undefined }));
  const ctx = `prompt ${info.promptTokens} tokens, ignore_eos, mock ${opts.mockMode}, token delay ${opts.tokenDelayMs} ms`;
  const out: string[] = [''];
  const push = (s: string) => {
    if (s) out.push(s, '');
  };
  const runs = <T,>(pick: (r: TargetResults) => T | null | undefined) =>
    targets.filter((t) => info.results[t] && pick(info.results[t]!)).map((t) => ({ target: t, r: pick(info.results[t]!)! }));
  const soak = targets.map((t) => info.results[t]?.soak).find((s) => s);
  if (soak) {
    push(formatPhaseTable(`RSS soak: ${opts.soakRequests} requests asked, max_tokens 1, C = ${opts.shortConcurrency} (${ctx})`, cols((r) => r.soak?.phase)));
  }
  for (const c of opts.concurrency) {
    push(formatPhaseTable(`C = ${c}   (max_tokens ${opts.maxTokens}, ${ctx})`, cols((r) => r.streaming[c])));
  }
  push(formatPhaseTable(`max_tokens 1, C = ${opts.shortConcurrency}   (${ctx})`, cols((r) => r.short)));
  const gen = info.results.gateway?.generate;
  if (gen) {
    push(formatGenerateTable(`/generate streaming, gateway CPU and wire bytes per token (${opts.generateConcurrency} concurrent streams per cell, zero-delay engine)`, gen));
  }
  push(
    formatPacedTable(
      `paced: ${opts.pacedStreams} streams, one token per stream per ${opts.pacedStepMs} ms step, opened over ${opts.pacedRampSec} s; ` +
        `${opts.pacedWindowSec} s window with all open; RSS again ${opts.pacedIdleSec} s after they ended`,
      runs((r) => r.paced),
    ),
  );
  push(
    formatArrivalsTable(
      `arrivals: ${opts.arrivals} streams of ${opts.arrivalsMaxTokens} tokens issued together on new connections, idle target paced at ${opts.pacedStepMs} ms; ` +
        'measured: the second burst, right after the first has ended',
      runs((r) => r.arrivals),
    ),
  );
  push(formatPhaseTable(`prompt cost, short prompt: C = 1, max_tokens 1 (${ctx})`, cols((r) => r.promptCost?.short)));
  push(
    formatPhaseTable(
      `prompt cost, long prompt: C = 1, max_tokens ${opts.longMaxTokens}, ${w.costPromptTokens}-token prompt (distinct per request)`,
      cols((r) => r.promptCost?.long),
    ),
  );
  const long = targets.filter((t) => info.results[t]?.longPrompt).map((t) => ({ target: t, r: info.results[t]!.longPrompt! }));
  push(
    formatLongPromptTable(
      `long-prompt scenario: ${opts.longStreams} streams of ${opts.longStreamMaxTokens} tokens, then + ${info.longPromptTokens}-token prompts ` +
        `at C = ${opts.longConcurrency} (max_tokens ${opts.longMaxTokens}); ${opts.longWindowSec} s per window; engine step ${opts.longTokenDelayMs} ms`,
      long,
    ),
  );
  const rss = targets
    .filter((t) => info.results[t] && Number.isFinite(info.results[t]!.rssAtEndMB))
    .map((t) => `${TARGET_LABEL[t]} ${info.results[t]!.rssAfterWarmupMB.toFixed(0)}→${info.results[t]!.rssAtEndMB.toFixed(0)} MB`);
  if (rss.length > 0) out.push(`server RSS after warm-up → at the end: ${rss.join(', ')}`, '');
  if (info.framesSource) out.push(`http-ceiling frames: ${info.framesSource}`, '');
  if (opts.phases.some((p) => ISSUE17_PHASES.includes(p))) push(formatIssueTable(issueFigures(opts, info.results), targets));
  push(formatIssueTable(issue30Figures(opts, info.results), targets, ISSUE30_TITLE));
  out.push(footnotes(opts.longMaxTokens, opts.ceilingMode), '', `total bench time ${seconds.toFixed(1)} s`, '');
  return out.join('\n');
}

async function main(argv: string[]): Promise<number> {
  let opts: BenchOptions | null;
  try {
    opts = parseBenchArgs(argv);
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (!opts) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (opts.summarize) {
    process.stdout.write(`${formatProfileSummary(opts.summarize, summarizeProfile(opts.summarize, opts.profileTop))}\n`);
    return 0;
  }
  if (opts.profileDir) opts.profileDir = resolve(opts.profileDir);
  if (opts.longMaxTokens !== 1 && opts.phases.includes('prompt-cost')) {
    log(`note: prompt cost compares a max_tokens-1 short prompt with a max_tokens-${opts.longMaxTokens} long one`);
  }

  const dir = await mkdtemp(join(tmpdir(), 'smgb-'));
  installSignalHandlers(async () => {
    await stopAll(3000);
    await rm(dir, { recursive: true, force: true });
  });
  const t0 = Date.now();
  try {
    const yardstick = measureYardstick();
    log(formatYardstick(yardstick));
    const w = await buildWorkloads(opts);
    log(
      `model ${opts.model}; prompt ${w.promptTokenIds.length} tokens (long ${w.longPromptTokens}, prompt cost ${w.costPromptTokens}); max_tokens ${opts.maxTokens}; ` +
        `C ∈ {${opts.concurrency.join(', ')}}; targets ${opts.targets.map((t) => TARGET_LABEL[t]).join('+')}; phases ${opts.phases.join(',')}`,
    );
    const info = await runAll(opts, dir, w);
    process.stdout.write(report(opts, w, info, (Date.now() - t0) / 1000));
    process.stdout.write(`${formatYardstick(yardstick)}\n`);

    if (opts.jsonOut) {
      const json = {
        options: opts,
        yardstick,
        promptTokens: info.promptTokens,
        longPromptTokens: info.longPromptTokens,
        ceilingFrames: info.framesSource,
        figures: issueFigures(opts, info.results),
        issue30: issue30Figures(opts, info.results),
        results: info.results,
      };
      await writeFile(opts.jsonOut, JSON.stringify(json, null, 2));
      log(`results written to ${opts.jsonOut}`);
    }
    if (opts.profileDir) {
      const prof = await gatewayProfile(opts.profileDir, info.gatewayPid);
      if (prof) process.stdout.write(`\n${formatProfileSummary(prof, summarizeProfile(prof, opts.profileTop))}\n`);
      else log(`no .cpuprofile found in ${opts.profileDir} (did the gateway exit cleanly?)`);
    }
    if (info.perfSummary) process.stdout.write(`\n${info.perfSummary}\n`);
    return 0;
  } catch (err) {
    if (interrupted.signal.aborted) return 130;
    const e = err as Error;
    process.stderr.write(`bench: ${opts.verbose ? (e.stack ?? e.message) : e.message}\n`);
    return 1;
  } finally {
    await stopAll(5000);
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
// zeromq / keep-alive handles must not keep a finished bench alive.
setTimeout(() => process.exit(), 200).unref();
