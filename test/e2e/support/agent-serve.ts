/**
 * `smg serve` on the mock engine (bin/mock-python) the way the agent-client files use it: Qwen3 as
 * `Qwen3-8B` (its reasoning and tool parsers), its real 40,960-token context, and the scripted
 * agent replies (agent-replies.ts). One per test file.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort } from '../../../src/mock-engine/spawn.js';
import { AGENT_ENGINE_ARGS, AGENT_REPLIES } from './agent-replies.js';
import { qwen3Model } from './models.js';
import { runSmg, waitForOk } from './proc.js';
import { MOCK_PYTHON, stopServe } from './serve-kit.js';

export interface AgentServe {
  /** The served model id (the model dir's path). */
  model: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startAgentServe(extra: readonly string[] = []): Promise<AgentServe> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-agents-'));
  const model = await qwen3Model(dir);
  const replies = join(dir, 'replies.json');
  await writeFile(replies, JSON.stringify(AGENT_REPLIES));
  const [port, metricsPort, workerBase] = [await freeTcpPort(), await freeTcpPort(), await freeTcpPort()];
  const proc = runSmg(
    [
      'serve', '--backend', 'vllm', '--connection-mode', 'zmq', '--python', MOCK_PYTHON, '--model', model,
      '--host', '127.0.0.1', '--port', String(port), '--worker-base-port', String(workerBase),
      '--router-prometheus-host', '127.0.0.1', '--router-prometheus-port', String(metricsPort),
      '--router-drain-settle-secs', '0', ...extra,
      ...AGENT_ENGINE_ARGS, '--mock-replies', replies,
    ],
    { SMG_ZMQ_SOCKET_DIR: dir },
  );
  const stop = () => stopServe(proc, dir);
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForOk('serve readiness', `${origin}/readiness`, 90_000, { detail: () => proc.output() });
  } catch (err) {
    await stop();
    throw err;
  }
  return { model, origin, output: () => proc.output(), stop };
}
