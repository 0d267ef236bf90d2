/**
 * What the vLLM and TokenSpeed mocks share on the command line: the flag loop, the `--mock-…`
 * knobs that mean the same on either wire, and the checks on them. Hand-rolled rather than yargs
 * because unknown engine flags must be skipped the way a launcher passes them through (a flag
 * followed by a non-flag token consumes it), and because the entry-point prefixes are no yargs shape.
 */
import { parseRankLoads } from './rank-load.js';

export type GenMode = 'count' | 'echo' | 'script';
export type FaultMode = 'dead' | 'silent' | 'garbage' | 'stall-input' | 'exit';

export class ArgsError extends Error {
  override name = 'ArgsError';
}

/** The `--mock-…` knobs both backends take; `F` is the set of faults the backend can inject. */
export interface MockKnobs<F extends FaultMode> {
  tokenDelayMs: number;
  loadDelayMs: number;
  /** null = script when the model dir has tokenizer.json, else count. */
  mode: GenMode | null;
  countBase: number;
  initTimeoutS: number;
  logRequests: boolean;
  /** null = $SMG_LOG_LEVEL or info. */
  logLevel: string | null;
  fault: F | null;
  faultAfterTokens: number;
  faultOnRequest: string | null;
  garbageCount: number;
  /** `--mock-rank-load` as given; parsed by rank-load.ts. */
  rankLoad: string | null;
  /** `--mock-replies <file>`: per-request scripted replies (replies.ts). */
  replies: string | null;
  help: boolean;
  /** Engine flags the mock does not model; reported once as a warning. */
  ignored: string[];
}

/** The knobs' defaults; only the INIT timeout differs between the engines the mocks stand for. */
export function defaultKnobs(initTimeoutS: number): MockKnobs<never> {
  return {
    tokenDelayMs: 0,
    loadDelayMs: 0,
    mode: null,
    countBase: 100,
    initTimeoutS,
    logRequests: false,
    logLevel: null,
    fault: null,
    faultAfterTokens: 1,
    faultOnRequest: null,
    garbageCount: 3,
    rankLoad: null,
    replies: null,
    help: false,
    ignored: [],
  };
}

type BaseKind = 'int' | 'str' | 'bool';

/** `X` names the value kinds a backend parses itself (lengths, id lists). */
export interface FlagSpec<K extends string, X extends string = never> {
  names: readonly string[];
  key: K;
  kind: BaseKind | X;
  choices?: readonly string[];
}

const GEN_MODES: readonly GenMode[] = ['count', 'echo', 'script'];

/** The shared knobs' flags (and `--mock-text`, whose default each backend picks), plus `--help`. */
export function knobFlags(faults: readonly FaultMode[]): FlagSpec<keyof MockKnobs<FaultMode> | 'text'>[] {
  return [
    { names: ['--mock-token-delay-ms'], key: 'tokenDelayMs', kind: 'int' },
    { names: ['--mock-load-delay-ms'], key: 'loadDelayMs', kind: 'int' },
    { names: ['--mock-mode'], key: 'mode', kind: 'str', choices: GEN_MODES },
    { names: ['--mock-count-base'], key: 'countBase', kind: 'int' },
    { names: ['--mock-text'], key: 'text', kind: 'str' },
    { names: ['--mock-init-timeout-s'], key: 'initTimeoutS', kind: 'int' },
    { names: ['--mock-log-requests'], key: 'logRequests', kind: 'bool' },
    { names: ['--mock-log-level'], key: 'logLevel', kind: 'str' },
    { names: ['--mock-fault'], key: 'fault', kind: 'str', choices: faults },
    { names: ['--mock-fault-after-tokens'], key: 'faultAfterTokens', kind: 'int' },
    { names: ['--mock-fault-on-request'], key: 'faultOnRequest', kind: 'str' },
    { names: ['--mock-garbage-count'], key: 'garbageCount', kind: 'int' },
    { names: ['--mock-rank-load'], key: 'rankLoad', kind: 'str' },
    { names: ['--mock-replies'], key: 'replies', kind: 'str' },
    { names: ['--help', '-h'], key: 'help', kind: 'bool' },
  ];
}

export const isFlag = (tok: string): boolean => tok.startsWith('-') && tok.length > 1 && !/^-\d/.test(tok);

export function parseIntFlag(flag: string, v: string): number {
  if (!/^-?\d+$/.test(v)) throw new ArgsError(`${flag}: expected an integer, got '${v}'`);
  return Number(v);
}

export interface FlagLoopOptions<X extends string> {
  /** Parsers for the backend's own value kinds. */
  kinds: Record<X, (flag: string, v: string) => unknown>;
  /** Throws for a flag the backend refuses outright, known or not. */
  refuse?: (name: string) => void;
}

/**
 * Parses `toks` (the argv after the entry-point prefix) into `out`; returns the positional
 * argument (the model), or null.
 */
export function parseFlagTokens<X extends string>(
  toks: readonly string[],
  flags: readonly FlagSpec<string, X>[],
  out: { ignored: string[] },
  opts: FlagLoopOptions<X>,
): string | null {
  const rec = out as unknown as Record<string, unknown>;
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
    opts.refuse?.(name);
    const spec = flags.find((f) => f.names.includes(name));
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
    const v = eq >= 0 ? tok.slice(eq + 1) : toks[++i];
    if (v === undefined) throw new ArgsError(`${name}: missing value`);
    if (spec.choices && !spec.choices.includes(v)) {
      throw new ArgsError(`${name}: expected one of ${spec.choices.join(', ')}, got '${v}'`);
    }
    rec[spec.key] = spec.kind === 'int' ? parseIntFlag(name, v) : spec.kind === 'str' ? v : opts.kinds[spec.kind as X](name, v);
  }
  return positional;
}

/** Checks on the shared knobs; `rankLimit` bounds the rank (or engine index) `--mock-rank-load` may name. */
export function validateKnobs(a: MockKnobs<FaultMode>, rankLimit: number): void {
  if (a.tokenDelayMs < 0 || a.loadDelayMs < 0) throw new ArgsError('delays must be >= 0');
  if (a.faultAfterTokens < 0) throw new ArgsError('--mock-fault-after-tokens must be >= 0');
  try {
    parseRankLoads(a.rankLoad, rankLimit);
  } catch (err) {
    throw new ArgsError((err as Error).message);
  }
}

/** The handshake address every rank dials; IPv6 literals are bracketed as the engines do. */
export function tcpEndpoint(host: string, port: number): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `tcp://${h}:${port}`;
}
