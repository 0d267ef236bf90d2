/**
 * `smg serve` argv → a validated ServeConfig (spec cli-and-api §2.1–§2.3, §8). Every check that
 * can run before touching ports or processes runs here, so usage errors exit 2 with nothing started.
 * Flag spellings, defaults, choices and ranges come from the shared flag table (src/cli/flags/).
 *
 * Clone decisions (§8): only vLLM and TokenSpeed in zmq mode are launchable (the gateway speaks
 * ZeroMQ only); TokenSpeed outside zmq and a missing --model (either backend) fail here with exit 2
 * instead of at launch; replica and engine counts must be >= 1.
 */
import type { RuntimeType } from '../../engine/types.js';
import { leadingPositional, readEngineInt, readEngineValue } from '../../launcher/engine-args.js';
import { usageError, type UsageError } from '../../launcher/launch-error.js';
import { parseInteger } from '../../util/numbers.js';
import { lastValue, rangeProblem, ROUTER_PREFIX, spellings, type FlagDef, type FlagValue } from '../flags/flag-def.js';
import { CONNECTION_MODES, SERVE_BACKENDS } from '../flags/serve-flags.js';
import { routerFlag, serveFlag } from '../flags/table.js';
import { splitServeArgv, type SplitOptions } from './argv-split.js';

/** Without --backend (and $SMG_DEFAULT_BACKEND) the default is sglang, which the user never typed. */
export const BACKEND_MISSING =
  '--backend is required: pass --backend vllm or --backend tokenspeed (with --connection-mode zmq)';
/** Without --connection-mode the default is grpc, which the user never typed. */
export const MODE_MISSING =
  '--connection-mode zmq is required: this smg talks to headless engines over ZeroMQ only';

export const TOKENSPEED_ZMQ_ONLY =
  'TokenSpeed backend only supports --connection-mode zmq (the headless engine speaks the ZMQ direct-backend wire)';

export const MODEL_REQUIRED = '--model is required with --connection-mode zmq';

export interface ServeConfig {
  readonly backend: RuntimeType;
  readonly connectionMode: 'zmq';
  /** Gateway bind address (serve's --host/--port, not the engine's). */
  readonly host: string;
  readonly port: number;
  /** Serve's --data-parallel-size: independent engine processes, one gateway worker each. */
  readonly replicas: number;
  readonly workerHost: string;
  readonly workerBasePort: number;
  /** Parsed for compatibility; zmq mode has no health wait (§2.10). */
  readonly workerStartupTimeoutSecs: number;
  readonly enableTokenUsageDetails: boolean;
  readonly python: string;
  readonly restartEngines: boolean;
  readonly dryRun: boolean;
  readonly prefixEngineOutput: boolean;
  /** Engine passthrough, verbatim and in order (builders filter launcher-owned flags). */
  readonly engineArgs: readonly string[];
  /** Engine model: vLLM positional or first `--model`; undefined lets vLLM use its own default. */
  readonly model: string | undefined;
  readonly tensorParallelSize: number;
  /** Engine-level DP size E read from the passthrough (grouped worker when > 1). */
  readonly engineDataParallelSize: number;
  /** `--router-*` values by gateway flag name; gateway-config applies §2.8 on top. */
  readonly router: Readonly<Record<string, FlagValue>>;
  /** Lines to log at WARN before launching. */
  readonly warnings: readonly string[];
}

export type ServeParse =
  | { kind: 'config'; config: ServeConfig }
  | { kind: 'help' }
  | { kind: 'error'; error: UsageError };

export interface ServeParseOptions extends SplitOptions {
  /** Read for SMG_DEFAULT_BACKEND and SMG_PYTHON; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const fail = (message: string): ServeParse => ({ kind: 'error', error: usageError(message) });
const quotedChoices = (xs: readonly string[]): string => xs.map((x) => `'${x}'`).join(', ');

/**
 * argparse `type=int` plus the flag's range check (SMG has none). Counts use the gateway's Rust
 * message (`invalid value '<v>'; expected a count >= 1`) for bad text and for < 1 alike.
 * Returns the error message on failure; an absent flag gets the row's default.
 */
function intFlag(values: Readonly<Record<string, FlagValue>>, def: FlagDef, prefix = ''): number | string | undefined {
  const raw = lastValue(values[def.name]);
  if (raw === undefined) return typeof def.default === 'number' ? def.default : undefined;
  const display = spellings(def, prefix).join('/');
  const n = parseInteger(raw);
  if (def.range === 'count' && (n === null || n < 1)) return `argument ${display}: ${rangeProblem('count', n ?? 0, raw)}`;
  if (n === null) return `argument ${display}: invalid int value: '${raw}'`;
  const problem = rangeProblem(def.range, n, raw);
  return problem === null ? n : `argument ${display}: ${problem}`;
}

const defaultOf = (name: string): string => String(serveFlag(name).default);

/** A serve string flag, or its default from the table. */
function stringFlag(values: Readonly<Record<string, FlagValue>>, name: string): string {
  return lastValue(values[name]) ?? defaultOf(name);
}

export function parseServeArgs(argv: readonly string[], opts: ServeParseOptions = {}): ServeParse {
  const env = opts.env ?? process.env;
  const split = splitServeArgv(argv, opts);
  if (!split.ok) return { kind: 'error', error: split.error };
  const { serve, router, engineArgs } = split.split;

  // Pass-1 checks, in SMG's order: choices, then the zmq guard, then --help.
  const backend = lastValue(serve['backend']) ?? (env.SMG_DEFAULT_BACKEND || defaultOf('backend'));
  if (!(SERVE_BACKENDS as readonly string[]).includes(backend)) {
    return fail(`argument --backend: invalid choice: '${backend}' (choose from ${quotedChoices(SERVE_BACKENDS)})`);
  }
  const mode = stringFlag(serve, 'connection-mode');
  if (!(CONNECTION_MODES as readonly string[]).includes(mode)) {
    return fail(`argument --connection-mode: invalid choice: '${mode}' (choose from ${quotedChoices(CONNECTION_MODES)})`);
  }
  const backendTyped = lastValue(serve['backend']) !== undefined || !!env.SMG_DEFAULT_BACKEND;
  const modeTyped = lastValue(serve['connection-mode']) !== undefined;
  if (mode === 'zmq' && backend !== 'vllm' && backend !== 'tokenspeed') {
    if (!backendTyped) return fail(BACKEND_MISSING);
    return fail(`connection-mode zmq is only supported for the vllm and tokenspeed backends, not ${backend}`);
  }
  if (serve['help'] === true) return { kind: 'help' };

  if (backend === 'tokenspeed' && mode !== 'zmq') return fail(TOKENSPEED_ZMQ_ONLY);
  if (backend !== 'vllm' && backend !== 'tokenspeed') {
    if (!backendTyped) return fail(BACKEND_MISSING);
    return fail(`backend ${backend} is not supported by this smg; use --backend vllm or --backend tokenspeed with --connection-mode zmq`);
  }
  if (mode !== 'zmq') {
    if (!modeTyped) return fail(MODE_MISSING);
    return fail(`connection-mode ${mode} is not supported by this smg; use --connection-mode zmq (the gateway talks to headless engines over ZeroMQ)`);
  }

  const port = intFlag(serve, serveFlag('port'));
  const replicas = intFlag(serve, serveFlag('data-parallel-size'));
  const workerBasePort = intFlag(serve, serveFlag('worker-base-port'));
  const startupTimeout = intFlag(serve, serveFlag('worker-startup-timeout'));
  // Checked here too (argparse style) so a bad count fails before any port is probed.
  const engineCountFlag = routerFlag('zmq-engine-count');
  const engineCount = engineCountFlag && intFlag(router, engineCountFlag, ROUTER_PREFIX);
  for (const v of [port, replicas, workerBasePort, startupTimeout, engineCount]) {
    if (typeof v === 'string') return fail(v);
  }

  const warnings: string[] = [];
  const model = engineModel(backend, engineArgs);
  if (backend === 'tokenspeed' && model === undefined) {
    return fail('--model is required with --backend tokenspeed (the headless engine has no default model)');
  }
  // Clone decision: SMG spawns the engine and the gateway then rejects its worker (no served model
  // name), while serve runs on with no engine. vLLM's own default model is no answer either: the
  // gateway would have no tokenizer for it.
  if (model === undefined) {
    return fail(`${MODEL_REQUIRED} (the gateway needs the model's tokenizer and the name its engines register under)`);
  }

  const tp = readEngineInt(engineArgs, ['--tensor-parallel-size', '-tp']);
  if (tp.kind === 'invalid') return fail(`argument --tensor-parallel-size/-tp: invalid int value: '${tp.raw}'`);

  const dp = readEngineInt(engineArgs, ['--data-parallel-size']);
  let engineDp = 1;
  if (dp.kind === 'invalid') {
    warnings.push(`Ignoring non-integer value '${dp.raw}' for --data-parallel-size; using 1`);
  } else if (dp.kind === 'value') {
    if (dp.value < 1) return fail(`engine argument --data-parallel-size: invalid value '${dp.raw}'; expected a count >= 1`);
    engineDp = dp.value;
  }

  if (serve['worker-urls'] !== undefined) {
    warnings.push('--worker-urls is ignored by smg serve; the gateway is given the launched engines\' URLs');
  }

  return {
    kind: 'config',
    config: {
      backend,
      connectionMode: 'zmq',
      host: stringFlag(serve, 'host'),
      port: port as number,
      replicas: replicas as number,
      workerHost: stringFlag(serve, 'worker-host'),
      workerBasePort: workerBasePort as number,
      workerStartupTimeoutSecs: startupTimeout as number,
      enableTokenUsageDetails: serve['enable-token-usage-details'] === true,
      python: lastValue(serve['python']) ?? (env.SMG_PYTHON || defaultOf('python')),
      restartEngines: serve['restart-engines'] === true,
      dryRun: serve['dry-run'] === true,
      prefixEngineOutput: serve['prefix-engine-output'] === true,
      engineArgs,
      model,
      tensorParallelSize: tp.kind === 'value' ? tp.value : 1,
      engineDataParallelSize: engineDp,
      router,
      warnings,
    },
  };
}

/**
 * vLLM takes the model as `serve <model>`; we accept it as the first engine token (before any
 * engine flag, where it cannot be mistaken for a flag's value) and otherwise read `--model`.
 * The positional wins when both are given, as in `vllm serve`.
 */
function engineModel(backend: RuntimeType, engineArgs: readonly string[]): string | undefined {
  if (backend === 'vllm') {
    const positional = leadingPositional(engineArgs);
    if (positional !== undefined) return positional;
  }
  return readEngineValue(engineArgs, ['--model']);
}
