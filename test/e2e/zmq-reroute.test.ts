/**
 * The ZMQ side of "retry before the first byte": a request whose engine dies before its first
 * token (mock `--mock-fault dead --mock-fault-on-request chatcmpl`: it dies as the request
 * arrives) is sent again to another ready worker of the model, and the client sees an ordinary
 * answer, JSON or stream.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { handshakePortFor } from '../../src/engine/fnv-port.js';
import { startGateway, startRanks, waitReady } from './support/grouped-rig.js';
import { TINY_MODEL, waitFor } from './support/proc.js';
import { served, stopTwoWorkers, track } from './support/two-workers.js';

afterAll(stopTwoWorkers);

describe('engine death before the first token (ZMQ)', () => {
  it('reroutes the request to the other worker; JSON and stream both answer normally', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'smg-reroute-'));
    const urls = [`ipc://${dir}/w0`, `ipc://${dir}/w1`];
    const gw = await startGateway({ startupWorker: false, args: ['--worker-urls', ...urls, '--policy', 'round_robin'] });
    const engines = [
      startRanks({ port: handshakePortFor(urls[0]), size: 1, args: ['--mock-fault', 'dead', '--mock-fault-on-request', 'chatcmpl'] }),
      startRanks({ port: handshakePortFor(urls[1]), size: 1 }),
    ];
    const pair = { gw, engines, dir };
    track(pair);
    await waitReady(gw, engines);
    await waitFor('both workers ready', async () => {
      const body = (await (await fetch(`${gw.base}/workers`)).json()) as { workers: { status: string }[] };
      return body.workers.filter((w) => w.status === 'ready').length === 2 ? true : undefined;
    });
    const openai = new OpenAI({ baseURL: `${gw.base}/v1`, apiKey: 'unused', maxRetries: 0 });
    const json = await openai.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
    expect(json.choices[0].message.content).toMatch(/^Hel/);
    const stream = await openai.chat.completions.create({ model: TINY_MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
    expect(text).toMatch(/^Hel/);
    // Round robin sent one of the two to the faulty engine, which died on it.
    expect(served(pair)[0]).toBe(1);
    expect(gw.proc.output()).toContain(`request rerouted to ${urls[1]}`);
  }, 60_000);
});
