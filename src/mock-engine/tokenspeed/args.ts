/**
 * Argv of `smg mock-engine --backend tokenspeed`: the command line `smg serve` hands a real
 * headless TokenSpeed (wire-tokenspeed §9), plus `--mock-…` knobs (mock-flags.ts, shared with the
 * vLLM mock).
 */
import type { BatchArity } from '../../engine/dialects/tokenspeed/index.js';
import {
  ArgsError,
  defaultKnobs,
  type FaultMode,
  type FlagSpec,
  isFlag,
  knobFlags,
  type MockKnobs,
  parseFlagTokens,
  parseIntFlag,
  tcpEndpoint,
  validateKnobs,
} from '../mock-flags.js';

export type TsFaultMode = Extract<FaultMode, 'dead' | 'silent' | 'garbage' | 'exit'>;
export type TsRegistrationKey = 'prefix_granularity' | 'block_size';

export interface TsMockArgs extends MockKnobs<TsFaultMode> {
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
  /** null = the engine's default script text. */
  text: string | null;
  /** Comma-separated override of the EOS set the engine reads from the model dir (§8). */
  eosTokenIds: number[] | null;
  vocabSize: number | null;
  kvPages: number;
  outputArity: BatchArity;
  registrationKey: TsRegistrationKey;
  version: string;
}

/** Rejected by real headless mode: they belong to the in-process orchestrator (§9). */
export const ORCHESTRATOR_ONLY_FLAGS = ['--engine-startup-timeout', '--gateway-startup-timeout', '--drain-timeout', '--control-port'];

const FAULTS: TsFaultMode[] = ['dead', 'silent', 'garbage', 'exit'];
const ARITIES = ['9', '10', '14'] as const;

const FLAGS: FlagSpec<keyof TsMockArgs, 'ids'>[] = [
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
  { names: ['--mock-eos-token-ids'], key: 'eosTokenIds', kind: 'ids' },
  { names: ['--mock-vocab-size'], key: 'vocabSize', kind: 'int' },
  { names: ['--mock-kv-pages'], key: 'kvPages', kind: 'int' },
  { names: ['--mock-output-arity'], key: 'outputArity', kind: 'int', choices: ARITIES },
  { names: ['--mock-registration-key'], key: 'registrationKey', kind: 'str', choices: ['prefix_granularity', 'block_size'] },
  { names: ['--mock-version'], key: 'version', kind: 'str' },
  ...knobFlags(FAULTS),
];

export function defaultTsArgs(): TsMockArgs {
  return {
    ...defaultKnobs(600),
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
    text: null,
    eosTokenIds: null,
    vocabSize: null,
    kvPages: 2048,
    outputArity: 14,
    registrationKey: 'prefix_granularity',
    version: '0.1.0',
  };
}

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
  const positional = parseFlagTokens(stripPrefix(argv), FLAGS, out, { kinds: { ids: parseIds }, refuse: refuseOrchestratorFlag });
  if (positional !== null) out.model = positional;
  validate(out);
  return out;
}

function refuseOrchestratorFlag(name: string): void {
  if (ORCHESTRATOR_ONLY_FLAGS.includes(name)) {
    throw new ArgsError(`${name} is not supported in --headless mode (it belongs to the in-process orchestrator)`);
  }
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
  // Keyed by engine index (the identity), so any uint16 may be named.
  validateKnobs(a, 0x10000);
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
  return tcpEndpoint(a.dpAddress, a.dpRpcPort);
}
