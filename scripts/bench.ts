/**
 * `npm run bench`: gateway throughput/latency/CPU against a zero-delay mock engine, and the same
 * load sent straight to a mock engine through the engine client as the ceiling.
 * See scripts/bench/args.ts (or --help) for the flags.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { vllmDialect } from '../src/engine/dialects/vllm/index.js';
import { connectEngineClient, type EngineClient } from '../src/engine/engine-client.js';
import { handshakePortFor } from '../src/engine/fnv-port.js';
import type { SamplingSpec } from '../src/engine/types.js';
import { buildSampling } from '../src/pipeline/build-sampling.js';
import { buildTemplateKwargs } from '../src/pipeline/chat-template-thinking.js';
import { loadModelContext } from '../src/pipeline/model-context.js';
import { parseChatRequest } from '../src/api/openai/chat-request.js';
import { createLogger } from '../src/util/logger.js';
import { parseBenchArgs, USAGE, type BenchOptions } from './bench/args.js';
import { formatProfileSummary, summarizeProfile } from './bench/cpuprofile.js';
import { directRequestFn } from './bench/direct-client.js';
import { createAgent, gatewayPromptTokens, gatewayRequestFn } from './bench/gateway-client.js';
import { runPhase, warmUp, warmUpFor, type PhaseResult, type RequestFn } from './bench/phase.js';
import { Child, freePort, installSignalHandlers, interrupted, portIsFree, stopAll, waitReady } from './bench/procs.js';
import { PERF_NODE_FLAGS, PerfRecorder, removePerfMap, summarizePerf } from './bench/perf.js';
import { FOOTNOTES, formatPhaseTable, formatSummary } from './bench/report.js';

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

interface Workload {
  /** Chat body without `model` (the gateway's model id is filled in once known). */
  body: Record<string, unknown>;
  promptTokenIds: number[];
  /** What the gateway builds for this body, minus the engine's context limit (set per client). */
  sampling: (maxModelLen: number) => SamplingSpec;
}

async function buildWorkload(opts: BenchOptions): Promise<Workload> {
  const ctx = await loadModelContext({ modelId: opts.model, source: opts.model, chatTemplate: null });
  if (!ctx.template) throw new Error(`model ${opts.model} has no usable chat template: ${ctx.templateError}`);
  const messages = [{ role: 'user', content: opts.prompt }];
  const body: Record<string, unknown> = {
    messages,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: opts.maxTokens,
    ignore_eos: true,
    temperature: 0,
  };
  // Mirror the chat handler: template with the same kwargs, encode without special tokens.
  const kwargs = buildTemplateKwargs(
    { chatTemplateKwargs: {}, toolChoice: undefined, reasoningEffort: undefined, responseFormat: undefined },
    ctx.template.thinking,
  );
  const rendered = ctx.template.render({ messages, addGenerationPrompt: true, kwargs });
  const promptTokenIds = ctx.tokenizer.encode(rendered, false);
  const parsed = parseChatRequest({ ...body, model: 'bench' });
  const sampling = (maxModelLen: number) =>
    buildSampling(parsed, { runtime: 'vllm', promptLen: promptTokenIds.length, maxModelLen, vocab: ctx.tokenizer, logprobs: null })
      .spec;
  return { body, promptTokenIds, sampling };
}

/** An ipc:// URL under `dir` whose FNV-derived handshake port is free right now. */
async function workerUrl(dir: string, stem: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const url = `ipc://${join(dir, i === 0 ? stem : `${stem}-${i}`)}`;
    if (await portIsFree(handshakePortFor(url))) return url;
  }
  throw new Error('no free handshake port found for a worker url');
}

function engineArgs(opts: BenchOptions, url: string, promptLen: number, verbose: boolean): string[] {
  const maxC = Math.max(...opts.concurrency);
  const perSeq = promptLen + opts.maxTokens + 1;
  const maxModelLen = Math.max(4096, perSeq + 16);
  // Enough simulated KV for every sequence at once (plus slack), so no preemption skews the numbers.
  const blocks = Math.max(4096, Math.ceil(((maxC + 8) * (perSeq + 16)) / 16) * 2);
  return [
    'mock-engine', 'serve', opts.model, '--headless',
    '--data-parallel-size', '1', '--data-parallel-size-local', '1',
    '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', String(handshakePortFor(url)),
    '--mock-token-delay-ms', String(opts.tokenDelayMs),
    '--mock-mode', opts.mockMode, '--mock-count-base', String(opts.countBase),
    '--max-num-seqs', String(Math.max(256, maxC)),
    '--max-model-len', String(maxModelLen),
    '--num-gpu-blocks-override', String(blocks),
    '--mock-log-level', verbose ? 'info' : 'warn',
  ];
}

function requestsFor(opts: BenchOptions, c: number): number {
  return opts.requests ?? Math.max(opts.minRequests, 4 * c);
}

function progress(r: PhaseResult): void {
  const cpu = Object.entries(r.cpu)
    .filter(([k]) => k !== 'machine')
    .map(([k, v]) => `${k} ${v.usPerToken.toFixed(1)}µs/tok ${v.util.toFixed(2)}cores`)
    .join(', ');
  log(
    `${r.label} C=${r.concurrency}: ${r.ok}/${r.issued} ok${r.capped ? ' (time cap)' : ''}, ` +
      `${Math.round(r.tokensPerSec)} tok/s, TTFT p50 ${r.ttft.p50.toFixed(2)} ms, ITL p50 ${r.itl.p50.toFixed(3)} ms; ${cpu}`,
  );
  if (r.failed > 0) log(`  ${r.failed} failed: ${r.errors.join(' | ')}`);
}

async function runLevels(
  label: string,
  opts: BenchOptions,
  makeFn: (c: number, phase: 'warm' | 'run') => RequestFn,
  cpu: { name: string; pid: number | 'self' | 'machine' }[],
  alive: () => Promise<void>,
  /** Called once, after the JIT warm-up and before the first phase. */
  onMeasureStart?: () => void,
): Promise<Map<number, PhaseResult>> {
  const out = new Map<number, PhaseResult>();
  if (opts.warmupSecs > 0) {
    const wc = 32;
    log(`${label}: JIT warm-up, ${opts.warmupSecs}s at C=${wc}`);
    const w = await warmUpFor(wc, opts.warmupSecs * 1000, makeFn(wc, 'warm'));
    if (w.errors.length > 0) throw new Error(`${label} warm-up failed: ${w.errors.join(' | ')}`);
    log(`${label}: JIT warm-up done (${w.requests} requests)`);
  }
  onMeasureStart?.();
  for (const c of opts.concurrency) {
    interrupted.signal.throwIfAborted();
    await alive();
    const warm = Math.max(c, opts.warmup);
    if (warm > 0) {
      log(`${label} C=${c}: warm-up ${warm} requests`);
      const errs = await warmUp(c, warm, makeFn(c, 'warm'));
      if (errs.length > 0) throw new Error(`${label} warm-up at C=${c} failed: ${errs.join(' | ')}`);
    }
    await alive();
    const n = requestsFor(opts, c);
    log(`${label} C=${c}: measuring ≥${n} requests for ≥${opts.minPhaseSec}s (cap ${opts.timeCapSec}s)`);
    const r = await runPhase({
      label,
      concurrency: c,
      requests: n,
      minMs: opts.minPhaseSec * 1000,
      timeCapMs: opts.timeCapSec * 1000,
      run: makeFn(c, 'run'),
      cpu,
    });
    interrupted.signal.throwIfAborted();
    progress(r);
    await alive();
    out.set(c, r);
  }
  return out;
}

interface GatewayRun {
  results: Map<number, PhaseResult>;
  promptTokens: number;
  pid: number | null;
  /** Text summary of the perf profile (--perf). */
  perfSummary: string | null;
}

async function benchGateway(opts: BenchOptions, dir: string, w: Workload): Promise<GatewayRun> {
  const url = await workerUrl(dir, 'gw-e0');
  const [port, mport] = [await freePort(), await freePort()];
  const nodeFlags: string[] = [...opts.gatewayNodeFlags];
  if (opts.perfFile) nodeFlags.push(...PERF_NODE_FLAGS);
  if (opts.profileDir) {
    await mkdir(opts.profileDir, { recursive: true });
    nodeFlags.push('--cpu-prof', '--cpu-prof-dir', opts.profileDir);
  }
  log(`gateway on 127.0.0.1:${port}, worker ${url} (handshake port ${handshakePortFor(url)})${opts.profileDir ? `, profiling to ${opts.profileDir}` : ''}`);
  const gateway = new Child(
    'gateway',
    [
      'launch', '--worker-urls', url, '--backend', 'vllm', '--model-path', opts.model,
      '--host', '127.0.0.1', '--port', String(port),
      '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport),
      '--log-level', opts.verbose ? 'info' : 'warn',
      '--drain-settle-secs', '0', '--shutdown-grace-period-secs', '5',
      '--request-timeout-secs', String(Math.ceil(opts.requestTimeoutSec)),
    ],
    { nodeFlags, verbose: opts.verbose },
  );
  const engine = new Child('engine(gw)', engineArgs(opts, url, w.promptTokenIds.length, opts.verbose), { verbose: opts.verbose });
  log(`gateway pid ${gateway.pid}, engine pid ${engine.pid}`);
  const agent = createAgent();
  const base = `http://127.0.0.1:${port}`;
  const perf = opts.perfFile ? new PerfRecorder(gateway.pid, opts.perfFile) : null;
  let results: Map<number, PhaseResult> | null = null;
  let promptTokens = w.promptTokenIds.length;
  try {
    await waitReady(base, gateway, 60_000, [engine]);
    const models = (await (await fetch(`${base}/v1/models`)).json()) as { data: { id: string }[] };
    const model = models.data[0]?.id;
    if (!model) throw new Error(`gateway lists no model: ${JSON.stringify(models)}`);
    const body = { ...w.body, model };
    promptTokens = await gatewayPromptTokens(base, body);
    if (promptTokens !== w.promptTokenIds.length) {
      log(`WARNING: gateway counts ${promptTokens} prompt tokens, the direct path sends ${w.promptTokenIds.length}`);
    }
    const target = { host: '127.0.0.1', port, body: Buffer.from(JSON.stringify(body)), timeoutMs: opts.requestTimeoutSec * 1000 };
    const fn = gatewayRequestFn(target, agent);
    const alive = async () => {
      for (const c of [gateway, engine]) if (!c.running) throw new Error(await c.deathNoteAfterExit());
    };
    const cpu = [
      { name: 'gateway', pid: gateway.pid },
      { name: 'engine', pid: engine.pid },
      { name: 'bench', pid: 'self' as const },
      { name: 'machine', pid: 'machine' as const },
    ];
    results = await runLevels('gateway', opts, () => fn, cpu, alive, () => {
      if (perf) {
        log(`perf record on gateway pid ${gateway.pid} → ${opts.perfFile}`);
        perf.start();
      }
    });
  } finally {
    const perfErr = perf ? await perf.stop() : '';
    agent.destroy();
    // The gateway first, so its profile is written by a clean exit while the engine is still up.
    await gateway.stop(15_000);
    await engine.stop(5000);
    if (perf && !results) await removePerfMap(gateway.pid);
    if (perfErr && !results) log(`perf: ${perfErr}`);
  }
  let perfSummary: string | null = null;
  if (perf && opts.perfFile) {
    try {
      perfSummary = await summarizePerf(opts.perfFile, gateway.pid, opts.profileTop);
    } catch (err) {
      log(`perf summary failed: ${(err as Error).message}`);
    } finally {
      await removePerfMap(gateway.pid);
    }
  }
  return { results, promptTokens, pid: gateway.pid, perfSummary };
}

async function benchDirect(opts: BenchOptions, dir: string, w: Workload): Promise<Map<number, PhaseResult>> {
  const url = await workerUrl(dir, 'direct-e0');
  log(`direct: engine client bound for ${url} (handshake port ${handshakePortFor(url)})`);
  const engine = new Child('engine(direct)', engineArgs(opts, url, w.promptTokenIds.length, opts.verbose), { verbose: opts.verbose });
  const logger = createLogger({ level: opts.verbose ? 'info' : 'warn', destination: process.stderr });
  const ac = new AbortController();
  void engine.exited.then(() => ac.abort());
  let client: EngineClient | null = null;
  try {
    client = await connectEngineClient({ url, engineCount: 1, dialect: vllmDialect, logger, stageTimeoutMs: 30_000, signal: ac.signal }).catch(
      (err: unknown) => {
        throw new Error(`engine client handshake failed: ${(err as Error).message}\n--- engine log ---\n${engine.logTail()}`);
      },
    );
    const cl = client;
    const sampling = w.sampling(cl.maxModelLen);
    let phaseNo = 0;
    const makeFn = (c: number, phase: 'warm' | 'run') =>
      directRequestFn({
        client: cl,
        promptTokenIds: w.promptTokenIds,
        sampling,
        timeoutMs: opts.requestTimeoutSec * 1000,
        idPrefix: `bench-${phaseNo++}-${phase}-c${c}`,
      });
    const alive = async () => {
      if (!engine.running) throw new Error(await engine.deathNoteAfterExit());
      if (!cl.alive) throw new Error(`engine client dead: ${cl.deathReason?.message ?? 'unknown'}`);
    };
    return await runLevels('direct', opts, makeFn, [
      { name: 'engine', pid: engine.pid },
      { name: 'bench', pid: 'self' },
      { name: 'machine', pid: 'machine' },
    ], alive);
  } finally {
    if (client) await client.close().catch(() => {});
    await engine.stop(5000);
  }
}

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

  const dir = await mkdtemp(join(tmpdir(), 'smgb-'));
  installSignalHandlers(async () => {
    await stopAll(3000);
    await rm(dir, { recursive: true, force: true });
  });
  const t0 = Date.now();
  try {
    const w = await buildWorkload(opts);
    log(
      `model ${opts.model}; prompt ${w.promptTokenIds.length} tokens; max_tokens ${opts.maxTokens}; C ∈ {${opts.concurrency.join(', ')}}; ` +
        `targets ${opts.targets.join('+')}`,
    );
    let gw = new Map<number, PhaseResult>();
    let direct = new Map<number, PhaseResult>();
    let promptTokens = w.promptTokenIds.length;
    let gatewayPid: number | null = null;
    let perfSummary: string | null = null;
    if (opts.targets.includes('gateway')) {
      ({ results: gw, promptTokens, pid: gatewayPid, perfSummary } = await benchGateway(opts, dir, w));
    }
    interrupted.signal.throwIfAborted();
    if (opts.targets.includes('direct')) direct = await benchDirect(opts, dir, w);

    const ctx = { maxTokens: opts.maxTokens, promptTokens, mockMode: opts.mockMode, tokenDelayMs: opts.tokenDelayMs };
    const out: string[] = [''];
    for (const c of opts.concurrency) out.push(formatPhaseTable(c, gw.get(c), direct.get(c), ctx), '');
    out.push(formatSummary(opts.concurrency, gw, direct), '', FOOTNOTES, '');
    out.push(`total bench time ${((Date.now() - t0) / 1000).toFixed(1)} s`, '');
    process.stdout.write(out.join('\n'));

    if (opts.jsonOut) {
      const json = { options: opts, promptTokens, gateway: Object.fromEntries(gw), direct: Object.fromEntries(direct) };
      await writeFile(opts.jsonOut, JSON.stringify(json, null, 2));
      log(`results written to ${opts.jsonOut}`);
    }
    if (opts.profileDir) {
      const prof = await gatewayProfile(opts.profileDir, gatewayPid);
      if (prof) process.stdout.write(`\n${formatProfileSummary(prof, summarizeProfile(prof, opts.profileTop))}\n`);
      else log(`no .cpuprofile found in ${opts.profileDir} (did the gateway exit cleanly?)`);
    }
    if (perfSummary) process.stdout.write(`\n${perfSummary}\n`);
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
