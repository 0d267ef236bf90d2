/**
 * Argv of `smg mock-engine`: the same command line `smg serve` hands a real headless vLLM, plus
 * `--mock-…` knobs (mock-flags.ts, shared with the TokenSpeed mock).
 */
import {
  ArgsError,
  defaultKnobs,
  type FaultMode,
  type FlagSpec,
  isFlag,
  knobFlags,
  type MockKnobs,
  parseFlagTokens,
  tcpEndpoint,
  validateKnobs,
} from './mock-flags.js';

export { ArgsError, type FaultMode, type GenMode } from './mock-flags.js';

export interface MockArgs extends MockKnobs<FaultMode> {
  model: string;
  headless: boolean;
  dpSize: number;
  dpSizeLocal: number;
  dpAddress: string;
  dpRpcPort: number;
  dpStartRank: number;
  /** null = use the mock default (4096). */
  maxModelLen: number | null;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  blockSize: number;
  numGpuBlocks: number;
  dtype: string;
  tensorParallelSize: number;
  pipelineParallelSize: number;
  disableLogStats: boolean;
  /** vLLM's flag; the mock simulates a prefix cache only when it is given (see scheduler.ts). */
  enablePrefixCaching: boolean;
  /** vLLM's `--scheduling-policy`: fcfs (default) or priority (EngineCoreRequest.priority orders the queue). */
  schedulingPolicy: string;
  text: string;
  lockstep: boolean;
  abortReply: boolean;
  readyFirst: boolean;
  vllmVersion: string;
}

export const DEFAULT_TEXT = 'Hello! This is a scripted reply from the smg mock engine.';
const FAULT_MODES: FaultMode[] = ['dead', 'silent', 'garbage', 'stall-input', 'exit'];

const FLAGS: FlagSpec<keyof MockArgs, 'len'>[] = [
  { names: ['--model'], key: 'model', kind: 'str' },
  { names: ['--headless'], key: 'headless', kind: 'bool' },
  { names: ['--data-parallel-size', '-dp'], key: 'dpSize', kind: 'int' },
  { names: ['--data-parallel-size-local', '-dpl'], key: 'dpSizeLocal', kind: 'int' },
  { names: ['--data-parallel-address', '-dpa'], key: 'dpAddress', kind: 'str' },
  { names: ['--data-parallel-rpc-port', '-dpp'], key: 'dpRpcPort', kind: 'int' },
  { names: ['--data-parallel-start-rank', '-dpr'], key: 'dpStartRank', kind: 'int' },
  { names: ['--max-model-len'], key: 'maxModelLen', kind: 'len' },
  { names: ['--max-num-seqs'], key: 'maxNumSeqs', kind: 'int' },
  { names: ['--max-num-batched-tokens'], key: 'maxNumBatchedTokens', kind: 'len' },
  { names: ['--block-size'], key: 'blockSize', kind: 'int' },
  { names: ['--num-gpu-blocks-override'], key: 'numGpuBlocks', kind: 'int' },
  { names: ['--dtype'], key: 'dtype', kind: 'str' },
  { names: ['--tensor-parallel-size', '-tp'], key: 'tensorParallelSize', kind: 'int' },
  { names: ['--pipeline-parallel-size', '-pp'], key: 'pipelineParallelSize', kind: 'int' },
  { names: ['--disable-log-stats'], key: 'disableLogStats', kind: 'bool' },
  { names: ['--enable-prefix-caching'], key: 'enablePrefixCaching', kind: 'bool' },
  { names: ['--scheduling-policy'], key: 'schedulingPolicy', kind: 'str', choices: ['fcfs', 'priority'] },
  { names: ['--mock-lockstep'], key: 'lockstep', kind: 'bool' },
  { names: ['--mock-abort-reply'], key: 'abortReply', kind: 'bool' },
  { names: ['--mock-ready-first'], key: 'readyFirst', kind: 'bool' },
  { names: ['--mock-vllm-version'], key: 'vllmVersion', kind: 'str' },
  ...knobFlags(FAULT_MODES),
];

export function defaultArgs(): MockArgs {
  return {
    ...defaultKnobs(300),
    model: 'mock-model',
    headless: false,
    dpSize: 1,
    dpSizeLocal: -1,
    dpAddress: '127.0.0.1',
    dpRpcPort: 29550,
    dpStartRank: 0,
    maxModelLen: null,
    maxNumSeqs: 256,
    maxNumBatchedTokens: 8192,
    blockSize: 16,
    numGpuBlocks: 4096,
    dtype: 'bfloat16',
    tensorParallelSize: 1,
    pipelineParallelSize: 1,
    disableLogStats: false,
    enablePrefixCaching: false,
    schedulingPolicy: 'fcfs',
    text: DEFAULT_TEXT,
    lockstep: false,
    abortReply: false,
    readyFirst: false,
    vllmVersion: '0.27.1',
  };
}

/** vLLM accepts human-readable lengths such as `8k` or `1M` (binary and decimal alike here). */
function parseLen(flag: string, v: string): number {
  const m = /^(\d+)([kKmM]?)$/.exec(v);
  if (!m) throw new ArgsError(`${flag}: expected an integer (optionally with k/m suffix), got '${v}'`);
  const mult = m[2] === '' ? 1 : m[2].toLowerCase() === 'k' ? 1000 : 1_000_000;
  return Number(m[1]) * mult;
}

/** Drop a launcher prefix: `[python] -m vllm.entrypoints.cli.main serve`, `vllm serve`, `serve`. */
function stripPrefix(argv: string[]): string[] {
  let i = 0;
  while (i < argv.length && !isFlag(argv[i]) && argv[i] !== 'serve') i++;
  if (argv[i] === '-m' && argv[i + 1] !== undefined) i += 2;
  if (argv[i] === 'serve') return argv.slice(i + 1);
  // No `serve` among the leading tokens: treat the whole argv as serve's own.
  return argv.slice(argv[0] === '-m' ? 2 : 0);
}

export function parseMockArgs(argv: string[]): MockArgs {
  const out = defaultArgs();
  const positional = parseFlagTokens(stripPrefix(argv), FLAGS, out, { kinds: { len: parseLen } });
  if (positional !== null) out.model = positional;
  if (out.dpSizeLocal < 0) out.dpSizeLocal = out.dpSize;
  validate(out);
  return out;
}

function validate(a: MockArgs): void {
  if (a.help) return;
  if (a.dpSize < 1) throw new ArgsError(`--data-parallel-size must be >= 1, got ${a.dpSize}`);
  if (a.dpSizeLocal < 1) throw new ArgsError(`--data-parallel-size-local must be >= 1, got ${a.dpSizeLocal}`);
  if (a.dpStartRank < 0 || a.dpStartRank + a.dpSizeLocal > 0xffff) {
    throw new ArgsError(`ranks ${a.dpStartRank}..${a.dpStartRank + a.dpSizeLocal - 1} do not fit a 2-byte identity`);
  }
  if (a.dpRpcPort < 1 || a.dpRpcPort > 65535) throw new ArgsError(`--data-parallel-rpc-port out of range: ${a.dpRpcPort}`);
  if (a.maxModelLen !== null && a.maxModelLen < 1) throw new ArgsError('--max-model-len must be >= 1');
  for (const [flag, v] of [
    ['--max-num-seqs', a.maxNumSeqs],
    ['--max-num-batched-tokens', a.maxNumBatchedTokens],
    ['--block-size', a.blockSize],
    ['--num-gpu-blocks-override', a.numGpuBlocks],
    ['--mock-init-timeout-s', a.initTimeoutS],
  ] as const) {
    if (v < 1) throw new ArgsError(`${flag} must be >= 1, got ${v}`);
  }
  if (a.garbageCount < 1) throw new ArgsError('--mock-garbage-count must be >= 1');
  validateKnobs(a, a.dpSize);
}

/** The address every rank dials; IPv6 literals are bracketed like vLLM does. */
export function handshakeAddress(a: MockArgs): string {
  return tcpEndpoint(a.dpAddress, a.dpRpcPort);
}
