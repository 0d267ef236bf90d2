/**
 * `smg serve` through the real CLI with one mock engine (bin/mock-python): readiness, a chat
 * completion through the official openai client, SIGTERM → 143 with no engine process left;
 * plus the paths that must start nothing: --help, --dry-run, usage errors (2) and gateway
 * validation errors (1).
 */
import { readdir } from 'node:fs/promises';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { REPEAT_SIGNAL_WINDOW_MS } from '../../src/launcher/shutdown-controller.js';
import { runSmg, TINY_MODEL, waitFor } from './support/proc.js';
import { holdRequestInFlight, isGone, launchedFromBase, launchedPids, MOCK_PYTHON, readiness, serveOnMocks, workerStatus, type ServeRun } from './support/serve-kit.js';

const BASE_PORT = 41000;

describe('smg serve, one replica (e2e)', () => {
  let run: ServeRun;
  afterAll(async () => run?.cleanup());

  it('becomes ready, answers through the openai client, and exits 143 on SIGTERM leaving no engine', async () => {
    const t0 = performance.now();
    run = await serveOnMocks([], BASE_PORT);
    await waitFor('readiness 200', async () => ((await readiness(run.base)).status === 200 ? true : undefined));
    console.log(`[measure] smg serve start → /readiness 200: ${(performance.now() - t0).toFixed(0)} ms`);

    const out = run.proc.output();
    const [engine] = launchedFromBase(out, BASE_PORT);
    const url = run.workerUrl(engine.port);
    expect(out).toContain(`--router-model-path not set; using --model ${TINY_MODEL} as the gateway model path`);
    expect(out).toContain(
      `Launching worker with command: ${MOCK_PYTHON} -m vllm.entrypoints.cli.main serve ${TINY_MODEL} --headless ` +
        `--data-parallel-size 1 --data-parallel-size-local 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port ${handshakePortFor(url)}`,
    );
    expect(out).toContain('dp=1: forcing router policy to passthrough');
    expect(out).toContain('engine-0: handshake done (context length 4096)');
    expect(out).toContain(`Gateway listening on ${run.base}`);
    expect(await workerStatus(run.base, url)).toBe('ready');

    const client = new OpenAI({ baseURL: `${run.base}/v1`, apiKey: 'unused', maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: TINY_MODEL,
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 200,
    });
    expect(reply.choices[0].message.content).toBe('Hello! This is a scripted reply from the smg mock engine.');
    expect(reply.choices[0].finish_reason).toBe('stop');
    expect(reply.usage?.completion_tokens).toBeGreaterThan(0);

    expect(await isGone(engine.pid)).toBe(false);

    const t1 = performance.now();
    run.proc.child.kill('SIGTERM');
    expect(await run.proc.exited).toBe(143);
    console.log(`[measure] SIGTERM → smg serve exit (drain + engine stop): ${(performance.now() - t1).toFixed(0)} ms`);
    expect(run.proc.output()).toContain('Received signal 15, shutting down workers…');
    expect(await isGone(engine.pid)).toBe(true);
    // The gateway released its ipc sockets on the way out.
    expect((await readdir(run.dir)).filter((f) => f.endsWith('.sock'))).toEqual([]);
  });
});

describe('smg serve, drain and a second signal (e2e)', () => {
  let run: ServeRun;
  afterAll(async () => run?.cleanup());

  it('SIGINT drains (readiness says draining); a second signal kills the engines and exits at once', async () => {
    run = await serveOnMocks(['--router-drain-settle-secs', '5'], BASE_PORT + 100);
    await waitFor('readiness 200', async () => ((await readiness(run.base)).status === 200 ? true : undefined));
    const [engine] = launchedPids(run.proc.output());
    // A request still in flight keeps the drain going; an idle gateway would not wait out the settle.
    const held = await holdRequestInFlight(run.base);

    const t0 = performance.now();
    run.proc.child.kill('SIGINT');
    await waitFor('draining', async () => {
      const r = await readiness(run.base);
      return r.status === 503 && r.body.reason === 'draining' ? true : undefined;
    });
    // The same signal again within a second counts as the first one (`timeout` sends SIGTERM
    // twice); a user's second Ctrl-C comes later than that.
    await waitFor('the repeat window to pass', () => (performance.now() - t0 > REPEAT_SIGNAL_WINDOW_MS + 100 ? true : undefined));
    run.proc.child.kill('SIGINT');
    expect(await run.proc.exited).toBe(130);
    const ms = performance.now() - t0;
    console.log(`[measure] SIGINT, SIGINT during the 5 s drain → exit: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(4000);
    expect(run.proc.output()).toContain('Received signal 2, shutting down workers…');
    expect(run.proc.output()).toContain('Received signal 2 again, killing workers now');
    await waitFor('engine gone', async () => ((await isGone(engine.pid)) ? true : undefined), 30_000);
    held.release();
  });
});

describe('smg serve, nothing started (e2e)', () => {
  const cli = async (args: string[]) => {
    const p = runSmg(['serve', ...args]);
    return { code: await p.exited, out: p.output() };
  };

  it('--dry-run prints the engine commands and the gateway configuration and exits 0', async () => {
    const { code, out } = await cli([
      '--backend', 'vllm', '--connection-mode', 'zmq', '--python', '/venv/bin/python', '--model', 'org/m',
      '--dp-size', '2', '--port', '9000', '--worker-base-port', '45000', '--dry-run', '--', '--data-parallel-size', '2',
    ]);
    expect(code).toBe(0);
    // Worker ports are probed from the base upwards; another test may hold 45000 at that moment.
    expect(out).toMatch(
      /\/venv\/bin\/python -m vllm\.entrypoints\.cli\.main serve org\/m --headless --data-parallel-size 2 --data-parallel-size-local 2 --data-parallel-address 127\.0\.0\.1 --data-parallel-rpc-port \d+\n/,
    );
    expect(out).toContain('CUDA_VISIBLE_DEVICES=0,1 PYTHONUNBUFFERED=1');
    expect(out).toContain('CUDA_VISIBLE_DEVICES=2,3 PYTHONUNBUFFERED=1');
    expect(out).toMatch(/smg launch --host 127\.0\.0\.1 --port 9000 --backend vllm --worker-urls ipc:\/\/\S+\/engine-\d+ ipc:\/\/\S+\/engine-\d+ --model-path org\/m --zmq-engine-count 2/);
    expect(out).toContain('engines per worker: 2');
    expect(out).not.toContain('Launched vllm worker');
  });

  it('--help lists serve flags, the --router-* convention and the engine passthrough rule', async () => {
    const { code, out } = await cli(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('--worker-base-port');
    expect(out).toContain('--router-policy');
    expect(out).toContain('passed to the engine verbatim and in order');
  });

  it('usage errors exit 2 with an argparse-style message', async () => {
    const zmq = await cli(['--backend', 'sglang', '--connection-mode', 'zmq']);
    expect(zmq.code).toBe(2);
    expect(zmq.out).toContain('smg serve: error: connection-mode zmq is only supported for the vllm and tokenspeed backends, not sglang');

    const policy = await cli(['--backend', 'vllm', '--connection-mode', 'zmq', '--model', 'm', '--router-policy', 'nope']);
    expect(policy.code).toBe(2);
    expect(policy.out).toContain("invalid value 'nope' for '--router-policy'");
    expect(policy.out).not.toContain('Launching worker');
  });

  it('an invalid gateway configuration exits 1 before any engine is spawned', async () => {
    const { code, out } = await cli(['--backend', 'vllm', '--connection-mode', 'zmq', '--model', 'm', '--python', MOCK_PYTHON, '--router-queue-size', '-1']);
    expect(code).toBe(1);
    expect(out).toContain("Configuration validation failed: Invalid value for field 'queue_size': -1 - Must be >= 0");
    expect(out).not.toContain('Launching worker');
  });
});
