/**
 * The http-ceiling target: scripts/bench/ceiling-server.ts in its own process (with the same
 * loop-probe preload as the gateway), driven by the same HTTP client and request bodies.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions } from '../args.js';
import { createAgent, httpRequestFn, type HttpTarget } from '../http-client.js';
import { ChildLoopProbe, LOOP_PROBE_FILE, loopProbeEnv } from '../loop-stats.js';
import type { RequestFn } from '../phase.js';
import { Child, freePort, waitReady } from '../procs.js';
import type { SseFrames } from '../sse-frames.js';
import { KINDS, type Kind, type Workloads } from '../workloads.js';
import { CLIENT, MACHINE, SERVER, type TargetHandle } from './target.js';

const SERVER_SCRIPT = fileURLToPath(new URL('../ceiling-server.ts', import.meta.url));

/** `stepMs` > 0: a paced server (one token per stream every stepMs), for the long-prompt scenario. */
export async function startCeiling(opts: BenchOptions, dir: string, w: Workloads, frames: SseFrames, stepMs = 0): Promise<TargetHandle> {
  const framesFile = join(dir, 'ceiling-frames.json');
  await writeFile(framesFile, JSON.stringify(frames));
  const port = await freePort();
  const tsx = import.meta.resolve('tsx/esm');
  const server = new Child('http-ceiling', ['--port', String(port), '--frames', framesFile, '--step-ms', String(stepMs), '--mode', stepMs > 0 ? 'step' : opts.ceilingMode], {
    nodeFlags: ['--import', LOOP_PROBE_FILE, '--import', tsx],
    env: loopProbeEnv(opts.phases),
    script: SERVER_SCRIPT,
    verbose: opts.verbose,
  });
  process.stderr.write(`bench: http-ceiling on 127.0.0.1:${port}, pid ${server.pid} (frames ${frames.source}, ${stepMs > 0 ? `one step per ${stepMs} ms` : `${opts.ceilingMode} mode`})\n`);
  const loop = new ChildLoopProbe(server);
  const agent = createAgent();
  const close = async () => {
    agent.destroy();
    await server.stop(5000);
  };
  try {
    await waitReady(`http://127.0.0.1:${port}`, server, 30_000);
  } catch (err) {
    await close();
    throw err;
  }
  // Short requests are answered in burst mode whatever --ceiling-mode says (issue 30 compares the
  // gateway's CPU per short request with a server that answers in one go). For max_tokens 1 the
  // two modes write the same frames in the same turn anyway; the path makes it explicit.
  const httpTarget = (kind: Kind): HttpTarget => ({
    host: '127.0.0.1',
    port,
    body: w.httpBody(kind, 'bench'),
    timeoutMs: opts.requestTimeoutSec * 1000,
    path: kind === 'short' ? '/v1/chat/completions?mode=burst' : undefined,
  });
  const fns = new Map<Kind, RequestFn>();
  for (const kind of KINDS) fns.set(kind, httpRequestFn(httpTarget(kind), agent));
  return {
    target: 'ceiling',
    fn: (kind) => fns.get(kind) ?? null,
    httpTarget,
    cpu: [
      { name: SERVER, pid: server.pid },
      { name: CLIENT, pid: 'self' },
      { name: MACHINE, pid: 'machine' },
    ],
    serverPid: server.pid,
    loop,
    alive: async () => {
      if (!server.running) throw new Error(await server.deathNoteAfterExit());
    },
    close,
  };
}
