/**
 * Argv of `smg mock-engine --backend tokenspeed`: the command line `smg serve` hands a real
 * headless TokenSpeed (wire-tokenspeed §9), plus `--mock-…` knobs. Parsed by hand for the same
 * reason as the vLLM mock: unknown engine flags must be skipped the way a launcher passes them
 * through, and the entry-point prefixes (`python -m tokenspeed.cli serve`, `ts serve`) are no
 * yargs shape.
 */
import { ArgsError, type FaultMode, type GenMode } from '../args.js';
import type { BatchArity } from '../../engine/dialects/tokenspeed/index.js';
import { parseRankLoads } from '../rank-load.js';

export type TsFaultMode = Extract<FaultMode, 'dead' | 'silent' | 'garbage' | 'exit'>;
export type TsRegistrationKey = 'prefix_granularity' | 'block_size';

export interface TsMockArgs {
  model: string;
  headless: boolean;
  servedModelName: string | null;
  dpAddress: string;
  dpRpcPort: number;
  zmqEngineIndex: number;
  dpSize: number;
  tensorParallelSize: number;
  grammarBackend: 'none' | 'xgrammar';
  enableOutputLogprobs: boolean;
  streamInterval: number;
  maxNumSeqs: number;
  chunkedPrefillSize: number;
  prefixGranularity: number;
  /** `--context-length` (TokenSpeed) or `--max-model-len`; null = the mock default. */
  contextLength: number | null;
  dtype: string;
  port: number;
  distInitAddr: string | null;
  tokenDelayMs: number;
  /** Simulated weight load + KV profiling, spent before HELLO (TokenSpeed order, §2.1). */
  loadDelayMs: number;
  mode: GenMode | null;
  countBase: number;
  text: string | null;
  /** Comma-separated override of the EOS set the engine reads from the model dir (§8). */
  eosTokenIds: number[] | null;
  vocabSize: number | null;
  kvPages: number;
  outputArity: BatchArity;
  registrationKey: TsRegistrationKey;
  version: string;
  initTimeoutS: number;
  logRequests: boolean;
  logLevel: string | null;
  fault: TsFaultMode | null;
  faultAfterTokens: number;
  faultOnRequest: string | null;
  garbageCount: number;
  /** `--mock-rank-load` as given, keyed by engine index (identity); parsed by rank-load.ts. */
  rankLoad: string | null;
  help: boolean;
  ignored: string[];
}

/** Rejected by real headless mode: they belong to the in-process orchestrator (§9). */
export const ORCHESTRATOR_ONLY_FLAGS = ['--engine-startup-timeout', '--gateway-startup-timeout', '--drain-timeout', '--control-port'];

const GEN_MODES: GenMode[] = ['count', 'echo', 'script'];
const FAULTS: TsFaultMode[] = ['dead', 'silent', 'garbage', 'exit'];
const ARITIES = ['9', '10', '14'] as const;

type Kind = 'int' | 'str' | 'bool' | 'ids';
interface FlagSpec {
  names: string[];
  key: keyof TsMockArgs;
  kind: Kind;
  choices?: readonly string[];
}

const FLAGS: FlagSpec[] = [
  { names: ['--model', '--model-path'], key: 'model', kind: 'str' },
  { names: ['--headless'], key: 'headless', kind: 'bool' },
  { names: ['--served-model-name'], key: 'servedModelName', kind: 'str' },
  { names: ['--data-parallel-address'], key: 'dpAddress', kind: 'str' },
  { names: ['--data-parallel-rpc-port'], key: 'dpRpcPort', kind: 'int' },
  { names: ['--zmq-engine-index'], key: 'zmqEngineIndex', kind: 'int' },
  { names: ['--data-parallel-size', '--dp-size', '--dp'], key: 'dpSize', kind: 'int' },
  { names: ['--tensor-parallel-size', '--tp-size', '--tp'], key: 'tensorParallelSize', kind: 'int' },
  { names: ['--grammar-backend'], key: 'grammarBackend', kind: 'str', choices: ['none', 'xgrammar'] },
  { names: ['--enable-output-logprobs'], key: 'enableOutputLogprobs', kind: 'bool' },
  { names: ['--stream-interval'], key: 'streamInterval', kind: 'int' },
  { names: ['--max-num-seqs'], key: 'maxNumSeqs', kind: 'int' },
  { names: ['--chunked-prefill-size'], key: 'chunkedPrefillSize', kind: 'int' },
  { names: ['--prefix-granularity', '--block-size'], key: 'prefixGranularity', kind: 'int' },
  { names: ['--context-length', '--max-model-len'], key: 'contextLength', kind: 'int' },
  { names: ['--dtype'], key: 'dtype', kind: 'str' },
  { names: ['--port'], key: 'port', kind: 'int' },
  { names: ['--dist-init-addr'], key: 'distInitAddr', kind: 'str' },
  { names: ['--mock-token-delay-ms'], key: 'tokenDelayMs', kind: 'int' },
  { names: ['--mock-load-delay-ms'], key: 'loadDelayMs', kind: 'int' },
  { names: ['--mock-mode'], key: 'mode', kind: 'str', choices: GEN_MODES },
  { names: ['--mock-count-base'], key: 'countBase', kind: 'int' },
  { names: ['--mock-text'], key: 'text', kind: 'str' },
  { names: ['--mock-eos-token-ids'], key: 'eosTokenIds', kind: 'ids' },
  { names: ['--mock-vocab-size'], key: 'vocabSize', kind: 'int' },
  { names: ['--mock-kv-pages'], key: 'kvPages', kind: 'int' },
  { names: ['--mock-output-arity'], key: 'outputArity', kind: 'int', choices: ARITIES },
  { names: ['--mock-registration-key'], key: 'registrationKey', kind: 'str', choices: ['prefix_granularity', 'block_size'] },
  { names: ['--mock-version'], key: 'version', kind: 'str' },
  { names: ['--mock-init-timeout-s'], key: 'initTimeoutS', kind: 'int' },
  { names: ['--mock-log-requests'], key: 'logRequests', kind: 'bool' },
  { names: ['--mock-log-level'], key: 'logLevel', kind: 'str' },
  { names: ['--mock-fault'], key: 'fault', kind: 'str', choices: FAULTS },
  { names: ['--mock-fault-after-tokens'], key: 'faultAfterTokens', kind: 'int' },
  { names: ['--mock-fault-on-request'], key: 'faultOnRequest', kind: 'str' },
  { names: ['--mock-garbage-count'], key: 'garbageCount', kind: 'int' },
  { names: ['--mock-rank-load'], key: 'rankLoad', kind: 'str' },
  { names: ['--help', '-h'], key: 'help', kind: 'bool' },
];

export function defaultTsArgs(): TsMockArgs {
  return {
    model: 'mock-model',
    headless: false,
    servedModelName: null,
    dpAddress: '127.0.0.1',
    dpRpcPort: 30500,
    zmqEngineIndex: 0,
    dpSize: 1,
    tensorParallelSize: 1,
    grammarBackend: 'none',
    enableOutputLogprobs: false,
    streamInterval: 1,
    maxNumSeqs: 160,
    chunkedPrefillSize: 8192,
    prefixGranularity: 64,
    contextLength: null,
    dtype: 'bfloat16',
    port: 8000,
    distInitAddr: null,
    tokenDelayMs: 0,
    loadDelayMs: 0,
    mode: null,
    countBase: 100,
    text: null,
    eosTokenIds: null,
    vocabSize: null,
    kvPages: 2048,
    outputArity: 14,
    registrationKey: 'prefix_granularity',
    version: '0.1.0',
    initTimeoutS: 600,
    logRequests: false,
    logLevel: null,
    fault: null,
    faultAfterTokens: 1,
    faultOnRequest: null,
    garbageCount: 3,
    rankLoad: null,
    help: false,
    ignored: [],
  };
}

const isFlag = (tok: string): boolean => tok.startsWith('-') && tok.length > 1 && !/^-\d/.test(tok);

/**
 * Drops an entry-point prefix: `[python] -m tokenspeed.cli serve`, `ts serve`, `tokenspeed serve`,
 * `-m tokenspeed.runtime.entrypoints.engine` (no subcommand), or a bare `serve`.
 */
function stripPrefix(argv: string[]): string[] {
  let i = 0;
  while (i < argv.length && !isFlag(argv[i]) && argv[i] !== 'serve') i++;
  let start = 0;
  if (argv[i] === '-m' && argv[i + 1] !== undefined) {
    i += 2;
    start = i;
  }
  if (argv[i] === 'serve') return argv.slice(i + 1);
  // No subcommand: after `-m <module>` everything is the engine's; else a leading non-flag is the model.
  return argv.slice(start);
}

function parseIntFlag(flag: string, v: string): number {
  if (!/^-?\d+$/.test(v)) throw new ArgsError(`${flag}: expected an integer, got '${v}'`);
  return Number(v);
}

function parseIds(flag: string, v: string): number[] {
  const parts = v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return parts.map((p) => {
    const n = parseIntFlag(flag, p);
    if (n < 0) throw new ArgsError(`${flag}: token ids must be >= 0, got ${n}`);
    return n;
  });
}

export function parseTokenSpeedArgs(argv: string[]): TsMockArgs {
  const out = defaultTsArgs();
  const rec = out as unknown as Record<string, unknown>;
  const toks = stripPrefix(argv);
  let positional: string | null = null;
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i];
    if (!isFlag(tok)) {
      if (positional !== null) throw new ArgsError(`unexpected extra argument '${tok}'`);
      positional = tok;
      continue;
    }
    const eq = tok.indexOf('=');
    const name = eq >= 0 ? tok.slice(0, eq) : tok;
    if (ORCHESTRATOR_ONLY_FLAGS.includes(name)) {
      throw new ArgsError(`${name} is not supported in --headless mode (it belongs to the in-process orchestrator)`);
    }
    const spec = FLAGS.find((f) => f.names.includes(name));
    if (!spec) {
      if (eq < 0 && toks[i + 1] !== undefined && !isFlag(toks[i + 1])) {
        out.ignored.push(`${tok} ${toks[i + 1]}`);
        i++;
      } else out.ignored.push(tok);
      continue;
    }
    if (spec.kind === 'bool') {
      const v = eq >= 0 ? tok.slice(eq + 1) : 'true';
      if (!['true', 'false', '1', '0'].includes(v)) throw new ArgsError(`${name}: expected true/false, got '${v}'`);
      rec[spec.key] = v === 'true' || v === '1';
      continue;
    }
    const v = eq >= 0 ? tok.slice(eq + 1) : toks[++i];
    if (v === undefined) throw new ArgsError(`${name}: missing value`);
    if (spec.choices && !spec.choices.includes(v)) {
      throw new ArgsError(`${name}: expected one of ${spec.choices.join(', ')}, got '${v}'`);
    }
    rec[spec.key] = spec.kind === 'int' ? parseIntFlag(name, v) : spec.kind === 'ids' ? parseIds(name, v) : v;
  }
  if (positional !== null) out.model = positional;
  validate(out);
  return out;
}

function validate(a: TsMockArgs): void {
  if (a.help) return;
  if (a.dpAddress === '') throw new ArgsError('--data-parallel-address must not be empty');
  if (a.dpRpcPort < 1 || a.dpRpcPort > 65535) throw new ArgsError(`--data-parallel-rpc-port out of range: ${a.dpRpcPort}`);
  if (a.dpSize < 1) throw new ArgsError(`--data-parallel-size must be >= 1, got ${a.dpSize}`);
  if (a.zmqEngineIndex < 0 || a.zmqEngineIndex > 0xffff) throw new ArgsError(`--zmq-engine-index must fit uint16, got ${a.zmqEngineIndex}`);
  // The real engine fails while packing the identity of the last rank.
  if (a.zmqEngineIndex + a.dpSize - 1 > 0xffff) {
    throw new ArgsError(`--zmq-engine-index ${a.zmqEngineIndex} + rank ${a.dpSize - 1} does not fit uint16`);
  }
  if (a.dpSize > 1 && a.distInitAddr === null) {
    throw new ArgsError('When dp_size > 1 on a single node, you must provide --dist-init-addr');
  }
  if (a.distInitAddr !== null && !/^[^\s:]+:\d+$|^\[[0-9a-fA-F:]+\]:\d+$/.test(a.distInitAddr)) {
    throw new ArgsError(`--dist-init-addr must be host:port, got '${a.distInitAddr}'`);
  }
  if (a.maxNumSeqs < a.dpSize) throw new ArgsError(`--max-num-seqs (${a.maxNumSeqs}) must be >= the data-parallel size (${a.dpSize})`);
  if (a.streamInterval < 1) throw new ArgsError(`--stream-interval must be >= 1, got ${a.streamInterval}`);
  if (a.contextLength !== null && a.contextLength < 3) throw new ArgsError('--context-length must be >= 3');
  for (const [flag, v] of [
    ['--tensor-parallel-size', a.tensorParallelSize],
    ['--prefix-granularity', a.prefixGranularity],
    ['--mock-kv-pages', a.kvPages],
    ['--mock-init-timeout-s', a.initTimeoutS],
    ['--mock-garbage-count', a.garbageCount],
  ] as const) {
    if (v < 1) throw new ArgsError(`${flag} must be >= 1, got ${v}`);
  }
  if (a.vocabSize !== null && a.vocabSize < 1) throw new ArgsError('--mock-vocab-size must be >= 1');
  if (a.tokenDelayMs < 0 || a.loadDelayMs < 0) throw new ArgsError('delays must be >= 0');
  if (a.faultAfterTokens < 0) throw new ArgsError('--mock-fault-after-tokens must be >= 0');
  try {
    parseRankLoads(a.rankLoad, 0x10000);
  } catch (err) {
    throw new ArgsError((err as Error).message);
  }
}

/** The reported dtype; the real engine refuses anything else before it ever says HELLO (§2.1). */
export function registrationDtype(dtype: string): 'bfloat16' | 'float16' | 'float32' | null {
  switch (dtype) {
    case 'auto':
    case 'bfloat16':
    case 'bf16':
      return 'bfloat16';
    case 'float16':
    case 'half':
    case 'fp16':
      return 'float16';
    case 'float32':
    case 'float':
    case 'fp32':
      return 'float32';
    default:
      return null;
  }
}

/** Every rank dials the same address; IPv6 literals are bracketed. */
export function tsHandshakeAddress(a: TsMockArgs): string {
  const host = a.dpAddress.includes(':') && !a.dpAddress.startsWith('[') ? `[${a.dpAddress}]` : a.dpAddress;
  return `tcp://${host}:${a.dpRpcPort}`;
}
