/**
 * ZMQ and HTTP workers side by side in one gateway: `smg launch` with a local ZMQ worker (a mock
 * engine on an ipc:// URL) and a remote `smg serve` host (http://127.0.0.2) for the same model.
 * The policy spreads the model's requests over both kinds; the ZMQ share goes through the pipeline
 * (tokenized here), the HTTP share is forwarded as it came; JSON and streams answer the same.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { freeTcpPort } from '../../src/mock-engine/spawn.js';
import type { MockEngineProcess } from '../../src/mock-engine/spawn.js';
import { startRanks } from './support/grouped-rig.js';
import { hostReady, hostRequests, startFront, startHost, workerIs, type Front, type Host } from './support/hosts-kit.js';
import { TINY_MODEL } from './support/proc.js';

let host: Host | undefined;
let front: Front | undefined;
let engine: MockEngineProcess | undefined;
let dir = '';
afterAll(async () => {
  await front?.cleanup();
  await engine?.stop(2000);
  await host?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ZMQ and HTTP workers in one gateway (e2e)', () => {
  it('serves one model from a local engine and a remote host', async () => {
    dir = await mkdtemp(join(tmpdir(), 'smg-mixed-'));
    const ipc = `ipc://${dir}/local`;
    host = await startHost('127.0.0.2', await freeTcpPort());
    front = await startFront([
      '--worker-urls', ipc, host.url, '--backend', 'vllm', '--model-path', TINY_MODEL,
      '--policy', 'round_robin', '--health-check-interval-secs', '1', '--health-check-endpoint', '/readiness',
    ]);
    engine = startRanks({ port: handshakePortFor(ipc), size: 1 });
    await hostReady(host);
    await workerIs(front, ipc, 'ready', 60_000);
    await workerIs(front, host.url, 'ready', 60_000);

    const openai = new OpenAI({ baseURL: `${front.base}/v1`, apiKey: 'unused', maxRetries: 0 });
    expect((await openai.models.list()).data.map((m) => m.id)).toEqual([TINY_MODEL]);
    const before = await hostRequests(host, '/v1/chat/completions');
    for (let i = 0; i < 4; i++) {
      const json = await openai.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: `hi ${i}` }], max_tokens: 3 });
      expect(json.choices[0].message.content).toMatch(/^Hel/);
      const stream = await openai.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: `yo ${i}` }], max_tokens: 3, stream: true });
      let text = '';
      for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
      expect(text).toMatch(/^Hel/);
    }
    const remote = (await hostRequests(host, '/v1/chat/completions')) - before;
    const local = engine.lines.filter((l) => l.includes('request added')).length;
    expect(remote).toBeGreaterThan(0);
    expect(local).toBeGreaterThan(0);
    expect(remote + local).toBe(8);
    // The ZMQ share's access-log lines name the local worker and its token counts (the fork
    // rebuilds the request from its body; the record must follow it).
    const zmqLines = front.proc.output().split('\n').filter((l) => l.includes('POST /v1/chat/completions 200') && l.includes(`worker=${ipc}`));
    expect(zmqLines.length).toBe(local);
    for (const l of zmqLines) expect(l).toMatch(/prompt_tokens=\d+ completion_tokens=\d+/);
  }, 90_000);
});
