/**
 * The mock engine's command line for a bench run: zero-delay steps and enough simulated KV and
 * sequence slots for the largest phase (so no preemption or queueing in the engine skews a phase).
 */
import { join } from 'node:path';
import { handshakePortFor } from '../../../src/engine/fnv-port.js';
import { pacedMaxTokens, type BenchOptions } from '../args.js';
import { portIsFree } from '../procs.js';

/** An ipc:// URL under `dir` whose FNV-derived handshake port is free right now. */
export async function workerUrl(dir: string, stem: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const url = `ipc://${join(dir, i === 0 ? stem : `${stem}-${i}`)}`;
    if (await portIsFree(handshakePortFor(url))) return url;
  }
  throw new Error('no free handshake port found for a worker url');
}

export function engineArgs(opts: BenchOptions, url: string, promptLen: number, longPromptLen: number): string[] {
  const maxC = Math.max(...opts.concurrency);
  const perSeq = promptLen + opts.maxTokens + 16;
  const longSeq = longPromptLen + opts.longMaxTokens + 16;
  const bgSeq = promptLen + opts.longStreamMaxTokens + 16;
  const costSeq = opts.promptCostTokens + 64 + opts.longMaxTokens + 16;
  const pacedSeq = promptLen + pacedMaxTokens(opts) + 16;
  const genSeq = Math.max(...opts.generateLengths) + 64;
  // Tokens held at once by the largest phase.
  const kvTokens = Math.max(
    maxC * perSeq,
    opts.shortConcurrency * (promptLen + 17),
    opts.longStreams * bgSeq + opts.longConcurrency * longSeq,
    opts.pacedStreams * pacedSeq,
    opts.arrivals * (promptLen + opts.arrivalsMaxTokens + 16),
    opts.generateConcurrency * genSeq,
  );
  const maxModelLen = Math.max(4096, perSeq, longSeq, bgSeq, costSeq, pacedSeq, genSeq);
  const blocks = Math.max(4096, Math.ceil((kvTokens + 8 * maxModelLen) / 16) * 2);
  const maxSeqs = Math.max(256, maxC, opts.shortConcurrency, opts.longStreams + opts.longConcurrency, opts.pacedStreams, opts.arrivals);
  return [
    'mock-engine', 'serve', opts.model, '--headless',
    '--data-parallel-size', '1', '--data-parallel-size-local', '1',
    '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', String(handshakePortFor(url)),
    '--mock-token-delay-ms', String(opts.tokenDelayMs),
    '--mock-mode', opts.mockMode, '--mock-count-base', String(opts.countBase),
    '--max-num-seqs', String(maxSeqs),
    '--max-model-len', String(maxModelLen),
    '--num-gpu-blocks-override', String(blocks),
    '--mock-log-level', opts.verbose ? 'info' : 'warn',
  ];
}
