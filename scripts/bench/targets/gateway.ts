/**
 * The gateway target: `smg launch` in front of one zero-delay `smg mock-engine`, over HTTP. The
 * gateway runs with the loop-probe preload (plus --gateway-node-flags, --profile, --perf), and one
 * of its real responses is captured as the frames the http-ceiling replays.
 */
import { mkdir } from 'node:fs/promises';
import { handshakePortFor } from '../../../src/engine/fnv-port.js';
import type { BenchOptions } from '../args.js';
import { bodyBytes, createAgent, gatewayPromptTokens, httpRequestFn, type HttpTarget } from '../http-client.js';
import { ChildLoopProbe, LOOP_PROBE_FILE, loopProbeEnv } from '../loop-stats.js';
import { PERF_NODE_FLAGS, PerfRecorder, removePerfMap, summarizePerf } from '../perf.js';
import type { RequestFn } from '../phase.js';
import { Child, freePort, waitReady } from '../procs.js';
import { captureFrames, type SseFrames } from '../sse-frames.js';
import { KINDS, type Kind, type Workloads } from '../workloads.js';
import { engineArgs, workerUrl } from './engine-args.js';
import { CLIENT, ENGINE, MACHINE, SERVER, type TargetHandle } from './target.js';

export interface GatewayHandle extends TargetHandle {
  pid: number;
  /** http://127.0.0.1:<port> (the /generate phase sends its own requests). */
  baseUrl: string;
  /** The gateway's own prompt token counts (short, long), for the tables. */
  promptTokens: number;
  longPromptTokens: number;
  /** Null when started with capture: false. */
  frames: SseFrames | null;
  /** Text summary of the perf profile (--perf), set by close(). */
  perfSummary: string | null;
}

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

/** `capture`: also record one response's SSE frames for the http-ceiling. */
/** `engineExtra`: more mock-engine flags (the paced target admits a whole arrival burst per step). */
export async function startGateway(opts: BenchOptions, dir: string, w: Workloads, capture = true, engineExtra: string[] = []): Promise<GatewayHandle> {
  const url = await workerUrl(dir, 'gw-e0');
  const [port, mport] = [await freePort(), await freePort()];
  // SMG_BENCH_GATEWAY_FLAGS: more node flags for this gateway only (scripts/arrivals-ab.ts DIR@KEY=VALUE
  // sets it per tree, so one run can compare node or V8 options side by side).
  const nodeFlags: string[] = ['--import', LOOP_PROBE_FILE, ...opts.gatewayNodeFlags, ...(process.env.SMG_BENCH_GATEWAY_FLAGS ?? '').split(/\s+/).filter(Boolean)];
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
    { nodeFlags, verbose: opts.verbose, env: loopProbeEnv(opts.phases) },
  );
  const engine = new Child('engine(gw)', [...engineArgs(opts, url, w.promptTokenIds.length, w.longPromptTokens), ...engineExtra], { verbose: opts.verbose });
  log(`gateway pid ${gateway.pid}, engine pid ${engine.pid}`);
  const loop = new ChildLoopProbe(gateway);
  const agent = createAgent();
  const base = `http://127.0.0.1:${port}`;
  const perf = opts.perfFile ? new PerfRecorder(gateway.pid, opts.perfFile) : null;
  let measured = false;

  const close = async () => {
    const perfErr = perf ? await perf.stop() : '';
    agent.destroy();
    // The gateway first, so its profile is written by a clean exit while the engine is still up.
    await gateway.stop(15_000);
    await engine.stop(5000);
    if (perf && opts.perfFile && measured) {
      try {
        handle.perfSummary = await summarizePerf(opts.perfFile, gateway.pid, opts.profileTop);
      } catch (err) {
        log(`perf summary failed: ${(err as Error).message}${perfErr ? `\n${perfErr}` : ''}`);
      }
    } else if (perfErr && perf) {
      log(`perf: ${perfErr}`);
    }
    if (perf) await removePerfMap(gateway.pid);
  };

  let handle!: GatewayHandle;
  try {
    await waitReady(base, gateway, 60_000, [engine]);
    const models = (await (await fetch(`${base}/v1/models`)).json()) as { data: { id: string }[] };
    const model = models.data[0]?.id;
    if (!model) throw new Error(`gateway lists no model: ${JSON.stringify(models)}`);
    const bodyObj = (kind: Kind) => {
      return JSON.parse(bodyBytes(w.httpBody(kind, model)).toString('utf8')) as Record<string, unknown>;
    };
    const promptTokens = await gatewayPromptTokens(base, bodyObj('stream'));
    if (promptTokens !== w.promptTokenIds.length) {
      log(`WARNING: gateway counts ${promptTokens} prompt tokens, the direct path sends ${w.promptTokenIds.length}`);
    }
    // The long prompt is only checked when a phase sends it (131k tokens cost the gateway ~50 ms).
    const longPromptTokens = opts.phases.includes('long-prompt') ? await gatewayPromptTokens(base, bodyObj('long')) : w.longPromptTokens;
    let frames: SseFrames | null = null;
    if (capture) {
      frames = await captureFrames('127.0.0.1', port, w.httpBody('stream', model) as Buffer);
      log(`captured ${frames.head.length}+${frames.tokens.length}+${frames.tail.length} SSE frames of a ${w.maxTokens('stream')}-token response for the http-ceiling`);
    }

    const timeoutMs = opts.requestTimeoutSec * 1000;
    const httpTarget = (kind: Kind): HttpTarget => ({ host: '127.0.0.1', port, body: w.httpBody(kind, model), timeoutMs });
    const fns = new Map<Kind, RequestFn>();
    for (const kind of KINDS) fns.set(kind, httpRequestFn(httpTarget(kind), agent));
    handle = {
      target: 'gateway',
      pid: gateway.pid,
      promptTokens,
      longPromptTokens,
      frames,
      perfSummary: null,
      fn: (kind) => fns.get(kind) ?? null,
      httpTarget,
      baseUrl: base,
      cpu: [
        { name: SERVER, pid: gateway.pid },
        { name: ENGINE, pid: engine.pid },
        { name: CLIENT, pid: 'self' },
        { name: MACHINE, pid: 'machine' },
      ],
      serverPid: gateway.pid,
      loop,
      alive: async () => {
        for (const c of [gateway, engine]) if (!c.running) throw new Error(await c.deathNoteAfterExit());
      },
      onMeasureStart: async () => {
        measured = true;
        if (perf) {
          log(`perf record on gateway pid ${gateway.pid} → ${opts.perfFile}`);
          await perf.start();
        }
      },
      close,
    };
    return handle;
  } catch (err) {
    await close();
    throw err;
  }
}
