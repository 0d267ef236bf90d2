/**
 * `smg serve --backend tokenspeed` on mock engines: bin/mock-python turns
 * `-m tokenspeed.cli serve …` into the TokenSpeed mode of `smg mock-engine`, the gateway's
 * startup workers are pinned to the tokenspeed runtime, a chat completion goes through the openai
 * client, and SIGTERM stops everything (143).
 */
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { TINY_MODEL, waitFor } from './support/proc.js';
import { isGone, launchedFromBase, MOCK_PYTHON, readiness, serveOnMocks, type ServeRun } from './support/serve-kit.js';

const BASE_PORT = 44000;

describe('smg serve --backend tokenspeed (e2e)', () => {
  let run: ServeRun;
  afterAll(async () => run?.cleanup());

  it('launches the TokenSpeed command, serves a chat completion and stops on SIGTERM', async () => {
    run = await serveOnMocks([], BASE_PORT, 'tokenspeed');
    await waitFor('readiness 200', async () => ((await readiness(run.base)).status === 200 ? true : undefined));
    const out = run.proc.output();
    const [engine] = launchedFromBase(out, BASE_PORT);
    const port = engine.port;
    const url = run.workerUrl(port);
    expect(out).toContain(
      `Launching worker with command: ${MOCK_PYTHON} -m tokenspeed.cli serve --headless --model ${TINY_MODEL} --port ${port} ` +
        `--dist-init-addr 127.0.0.1:${port + 233} --data-parallel-address 127.0.0.1 --data-parallel-rpc-port ${handshakePortFor(url)} ` +
        '--zmq-engine-index 0 --grammar-backend xgrammar --enable-output-logprobs',
    );
    expect(out).toContain('runtime=tokenspeed');
    expect(out).toContain('engine-0: handshake done (context length 4096)');

    const client = new OpenAI({ baseURL: `${run.base}/v1`, apiKey: 'unused', maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 6 });
    expect(reply.choices[0].message.content).toMatch(/^Hello/);

    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    expect(await isGone(engine.pid)).toBe(true);
  });
});
