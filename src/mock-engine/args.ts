/**
 * Argv of `smg mock-engine`: the same command line `smg serve` hands a real headless vLLM, plus
 * `--mock-…` knobs. Hand-rolled rather than yargs because unknown engine flags must be skipped the
 * way a launcher passes them through (a flag followed by a non-flag token consumes it), and because
 * the accepted prefixes (`python -m vllm.entrypoints.cli.main serve …`) are not a yargs shape.
 */

import { parseRankLoads } from './rank-load.js';

export type GenMode = 'count' | 'echo' | 'script';
export type FaultMode = 'dead' | 'silent' | 'garbage' | 'stall-input' | 'exit';

export interface MockArgs {
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
  tokenDelayMs: number;
  loadDelayMs: number;
  /** null = script when the model dir has tokenizer.json, else count. */
  mode: GenMode | null;
  countBase: number;
  text: string;
  lockstep: boolean;
  abortReply: boolean;
  readyFirst: boolean;
  initTimeoutS: number;
  logRequests: boolean;
  /** null = $SMG_LOG_LEVEL or info. */
  logLevel: string | null;
  vllmVersion: string;
  fault: FaultMode | null;
  faultAfterTokens: number;
  faultOnRequest: string | null;
  garbageCount: number;
  /** `--mock-rank-load` as given; parsed by rank-load.ts. */
  rankLoad: string | null;
  help: boolean;
  /** Engine flags the mock does not model; reported once as a warning. */
  ignored: string[];
}

export const DEFAULT_TEXT = 'Hello! This is a scripted reply from the smg mock engine.';
const GEN_MODES: GenMode[] = ['count', 'echo', 'script'];
const FAULT_MODES: FaultMode[] = ['dead', 'silent', 'garbage', 'stall-input', 'exit'];

export class ArgsError extends Error {
  override name = 'ArgsError';
}

type Kind = 'int' | 'str' | 'bool' | 'len';
interface FlagSpec {
  names: string[];
  key: keyof MockArgs;
  kind: Kind;
  choices?: readonly string[];
}

const FLAGS: FlagSpec[] = [
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
  { names: ['--mock-token-delay-ms'], key: 'tokenDelayMs', kind: 'int' },
  { names: ['--mock-load-delay-ms'], key: 'loadDelayMs', kind: 'int' },
  { names: ['--mock-mode'], key: 'mode', kind: 'str', choices: GEN_MODES },
  { names: ['--mock-count-base'], key: 'countBase', kind: 'int' },
  { names: ['--mock-text'], key: 'text', kind: 'str' },
  { names: ['--mock-lockstep'], key: 'lockstep', kind: 'bool' },
  { names: ['--mock-abort-reply'], key: 'abortReply', kind: 'bool' },
  { names: ['--mock-ready-first'], key: 'readyFirst', kind: 'bool' },
  { names: ['--mock-init-timeout-s'], key: 'initTimeoutS', kind: 'int' },
  { names: ['--mock-log-requests'], key: 'logRequests', kind: 'bool' },
  { names: ['--mock-log-level'], key: 'logLevel', kind: 'str' },
  { names: ['--mock-vllm-version'], key: 'vllmVersion', kind: 'str' },
  { names: ['--mock-fault'], key: 'fault', kind: 'str', choices: FAULT_MODES },
  { names: ['--mock-fault-after-tokens'], key: 'faultAfterTokens', kind: 'int' },
  { names: ['--mock-fault-on-request'], key: 'faultOnRequest', kind: 'str' },
  { names: ['--mock-garbage-count'], key: 'garbageCount', kind: 'int' },
  { names: ['--mock-rank-load'], key: 'rankLoad', kind: 'str' },
  { names: ['--help', '-h'], key: 'help', kind: 'bool' },
];

export function defaultArgs(): MockArgs {
  return {
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
    tokenDelayMs: 0,
    loadDelayMs: 0,
    mode: null,
    countBase: 100,
    text: DEFAULT_TEXT,
    lockstep: false,
    abortReply: false,
    readyFirst: false,
    initTimeoutS: 300,
    logRequests: false,
    logLevel: null,
    vllmVersion: '0.27.1',
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

/** vLLM accepts human-readable lengths such as `8k` or `1M` (binary and decimal alike here). */
function parseLen(flag: string, v: string): number {
  const m = /^(\d+)([kKmM]?)$/.exec(v);
  if (!m) throw new ArgsError(`${flag}: expected an integer (optionally with k/m suffix), got '${v}'`);
  const mult = m[2] === '' ? 1 : m[2].toLowerCase() === 'k' ? 1000 : 1_000_000;
  return Number(m[1]) * mult;
}

function parseInt10(flag: string, v: string): number {
  if (!/^-?\d+$/.test(v)) throw new ArgsError(`${flag}: expected an integer, got '${v}'`);
  return Number(v);
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
    const spec = FLAGS.find((f) => f.names.includes(name));
    if (!spec) {
      // Unknown engine flag: keep the launcher's passthrough rule so its value is not the model.
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
    let v: string | undefined;
    if (eq >= 0) v = tok.slice(eq + 1);
    else {
      v = toks[i + 1];
      i++;
    }
    if (v === undefined) throw new ArgsError(`${name}: missing value`);
    if (spec.choices && !spec.choices.includes(v)) {
      throw new ArgsError(`${name}: expected one of ${spec.choices.join(', ')}, got '${v}'`);
    }
    rec[spec.key] = spec.kind === 'int' ? parseInt10(name, v) : spec.kind === 'len' ? parseLen(name, v) : v;
  }
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
  if (a.tokenDelayMs < 0 || a.loadDelayMs < 0) throw new ArgsError('delays must be >= 0');
  if (a.faultAfterTokens < 0) throw new ArgsError('--mock-fault-after-tokens must be >= 0');
  if (a.garbageCount < 1) throw new ArgsError('--mock-garbage-count must be >= 1');
  try {
    parseRankLoads(a.rankLoad, a.dpSize);
  } catch (err) {
    throw new ArgsError((err as Error).message);
  }
}

/** The address every rank dials; IPv6 literals are bracketed like vLLM does. */
export function handshakeAddress(a: MockArgs): string {
  const host = a.dpAddress.includes(':') && !a.dpAddress.startsWith('[') ? `[${a.dpAddress}]` : a.dpAddress;
  return `tcp://${host}:${a.dpRpcPort}`;
}
