/**
 * The direct target: a fresh mock engine driven through the gateway's own engine client, inside
 * this bench process (ZMQ + msgpack; no HTTP, templates or detokenization). The serving process is
 * the bench itself, so its CPU, RSS and event loop include the load loop.
 */
import { vllmDialect } from '../../../src/engine/dialects/vllm/index.js';
import { connectEngineClient, type EngineClient } from '../../../src/engine/engine-client.js';
import { handshakePortFor } from '../../../src/engine/fnv-port.js';
import { createLogger } from '../../../src/util/logger.js';
import type { BenchOptions } from '../args.js';
import { directRequestFn } from '../direct-client.js';
import { SelfLoopProbe } from '../loop-stats.js';
import type { RequestFn } from '../phase.js';
import { Child } from '../procs.js';
import type { Kind, Workloads } from '../workloads.js';
import { engineArgs, workerUrl } from './engine-args.js';
import { ENGINE, MACHINE, SERVER, type TargetHandle } from './target.js';

export async function startDirect(opts: BenchOptions, dir: string, w: Workloads): Promise<TargetHandle> {
  const url = await workerUrl(dir, 'direct-e0');
  process.stderr.write(`bench: direct: engine client bound for ${url} (handshake port ${handshakePortFor(url)})\n`);
  const engine = new Child('engine(direct)', engineArgs(opts, url, w.promptTokenIds.length, w.longPromptTokens), { verbose: opts.verbose });
  const logger = createLogger({ level: opts.verbose ? 'info' : 'warn', destination: process.stderr });
  const ac = new AbortController();
  void engine.exited.then(() => ac.abort());
  let client: EngineClient | null = null;
  const loop = new SelfLoopProbe();
  const close = async () => {
    loop.close();
    if (client) await client.close().catch(() => {});
    await engine.stop(5000);
  };
  try {
    client = await connectEngineClient({ url, engineCount: 1, dialect: vllmDialect, logger, stageTimeoutMs: 30_000, signal: ac.signal }).catch(
      (err: unknown) => {
        throw new Error(`engine client handshake failed: ${(err as Error).message}\n--- engine log ---\n${engine.logTail()}`);
      },
    );
  } catch (err) {
    await close();
    throw err;
  }
  const cl = client;
  let phaseNo = 0;
  const fn = (kind: Kind): RequestFn | null => {
    if (kind === 'long' || kind === 'cost') return null;
    const sampling = w.sampling(kind, cl.maxModelLen);
    // Unique request ids across phases: each call hands out a fresh prefix.
    return directRequestFn({
      client: cl,
      promptTokenIds: w.promptTokenIds,
      sampling,
      timeoutMs: opts.requestTimeoutSec * 1000,
      idPrefix: `bench-${phaseNo++}-${kind}`,
    });
  };
  return {
    target: 'direct',
    fn,
    cpu: [
      { name: SERVER, pid: 'self' },
      { name: ENGINE, pid: engine.pid },
      { name: MACHINE, pid: 'machine' },
    ],
    serverPid: 'self',
    loop,
    alive: async () => {
      if (!engine.running) throw new Error(await engine.deathNoteAfterExit());
      if (!cl.alive) throw new Error(`engine client dead: ${cl.deathReason?.message ?? 'unknown'}`);
    },
    close,
  };
}
