/**
 * The exact engine command lines of `smg serve` in zmq mode (spec cli-and-api §2.7.1, §2.7.2).
 * Pure: argv in, argv out. The first token is the Python executable.
 */
import { distInitPort } from './ports.js';
import { filterOwnedArgs, leadingPositional, readEngineInt, suppliedKeys } from './engine-args.js';

export const VLLM_MODULE = 'vllm.entrypoints.cli.main';
export const TOKENSPEED_MODULE = 'tokenspeed.cli';

/** The engines always dial the gateway's handshake on loopback (§2.4). */
const LOOPBACK = '127.0.0.1';

/** Flags the launcher sets for vLLM; the user's copies are dropped (§2.7.1). */
export const VLLM_OWNED_FLAGS: readonly string[] = [
  '--model',
  '--headless',
  '--data-parallel-size',
  '--data-parallel-size-local',
  '--data-parallel-address',
  '--data-parallel-rpc-port',
];

/** Flags the launcher sets for TokenSpeed; `--data-parallel-size` is forwarded, not owned (§2.7.2). */
export const TOKENSPEED_OWNED_FLAGS: readonly string[] = [
  '--model',
  '--headless',
  '--port',
  '--dist-init-addr',
  '--data-parallel-address',
  '--data-parallel-rpc-port',
  '--zmq-engine-index',
];

/**
 * TokenSpeed defaults added unless the user supplied the flag in any form: without a grammar
 * backend constraints are silently ignored, and output logprobs are off by default (§2.7.2).
 */
export const TOKENSPEED_DEFAULTS: readonly (readonly string[])[] = [
  ['--grammar-backend', 'xgrammar'],
  ['--enable-output-logprobs'],
];

/** Engine DP size E: first `--data-parallel-size` in the passthrough; 1 when absent or unusable. */
export function engineDataParallelSize(engineArgs: readonly string[]): number {
  const dp = readEngineInt(engineArgs, ['--data-parallel-size']);
  return dp.kind === 'value' && dp.value >= 1 ? dp.value : 1;
}

export interface VllmCommandInput {
  readonly python: string;
  /** Undefined omits the positional and vLLM serves its own default model. */
  readonly model: string | undefined;
  readonly handshakePort: number;
  readonly engineArgs: readonly string[];
}

export function buildVllmCommand(input: VllmCommandInput): string[] {
  const dp = String(engineDataParallelSize(input.engineArgs));
  // A leading positional in the passthrough is the model itself (serve-config); it is placed after
  // `serve` below, so it must not appear a second time.
  const rest = leadingPositional(input.engineArgs) === undefined ? input.engineArgs : input.engineArgs.slice(1);
  return [
    input.python,
    '-m',
    VLLM_MODULE,
    'serve',
    ...(input.model === undefined ? [] : [input.model]),
    '--headless',
    '--data-parallel-size',
    dp,
    '--data-parallel-size-local',
    dp,
    '--data-parallel-address',
    LOOPBACK,
    '--data-parallel-rpc-port',
    String(input.handshakePort),
    ...filterOwnedArgs(rest, VLLM_OWNED_FLAGS),
  ];
}

export interface TokenspeedCommandInput {
  readonly python: string;
  readonly model: string;
  /** TokenSpeed's `--port`, also the base of its `--dist-init-addr` store port. */
  readonly workerPort: number;
  readonly handshakePort: number;
  readonly engineArgs: readonly string[];
}

export function buildTokenspeedCommand(input: TokenspeedCommandInput): string[] {
  const supplied = suppliedKeys(input.engineArgs);
  const defaults = TOKENSPEED_DEFAULTS.filter(([flag]) => !supplied.has(flag)).flat();
  return [
    input.python,
    '-m',
    TOKENSPEED_MODULE,
    'serve',
    '--headless',
    '--model',
    input.model,
    '--port',
    String(input.workerPort),
    '--dist-init-addr',
    `${LOOPBACK}:${distInitPort(input.workerPort)}`,
    '--data-parallel-address',
    LOOPBACK,
    '--data-parallel-rpc-port',
    String(input.handshakePort),
    '--zmq-engine-index',
    '0',
    ...defaults,
    ...filterOwnedArgs(input.engineArgs, TOKENSPEED_OWNED_FLAGS),
  ];
}
