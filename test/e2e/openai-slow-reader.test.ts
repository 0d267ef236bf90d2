/**
 * A client that stops reading mid-stream: the gateway's socket fills, its writes are refused, and
 * the frames made meanwhile wait in the stream's pending bytes (src/api/frame-bytes.ts) until the
 * socket drains. Nothing may be lost, reordered or overwritten. The stream is made big (2,000
 * tokens with 20 top logprobs each, several MB of SSE) so that it outgrows the loopback socket
 * buffers while the client is paused until the engine has produced every token.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rig, startRig, uniqueRid, waitForEngineLine } from './support/rig.js';

const TOKENS = 2000;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ engineArgs: ['--mock-mode', 'count'] });
});
afterAll(async () => {
  await rig?.stop();
});

interface Chunk {
  choices: { delta: { content?: string }; logprobs: { content: { token: string }[] } | null; finish_reason: string | null }[];
}

/** Posts a streaming chat request and pauses the response until `resumeWhen` settles. */
function pausedStream(body: object, resumeWhen: Promise<unknown>): Promise<{ status: number; text: string; bytesBeforeResume: number }> {
  const url = new URL(`${rig.baseURL}/chat/completions`);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const parts: Buffer[] = [];
      let received = 0;
      let bytesBeforeResume = -1;
      res.on('data', (b: Buffer) => {
        parts.push(b);
        received += b.length;
      });
      res.pause();
      void resumeWhen.then(() => {
        bytesBeforeResume = received;
        res.resume();
      }, reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), bytesBeforeResume }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('a client that stops reading mid-stream', () => {
  it('gets every frame, in order and intact, once it reads again', async () => {
    const rid = uniqueRid('slow');
    const body = {
      model: rig.model,
      messages: [{ role: 'user', content: 'Count for me' }],
      max_tokens: TOKENS,
      ignore_eos: true,
      logprobs: true,
      top_logprobs: 20,
      stream: true,
      rid,
    };
    const got = await pausedStream(body, waitForEngineLine(rig, 'request finished', rid, 60_000));
    expect(got.status).toBe(200);
    const events = got.text.split('\n\n').filter((e) => e.length > 0);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => {
      expect(e.startsWith('data: ')).toBe(true);
      return JSON.parse(e.slice('data: '.length)) as Chunk;
    });
    const choices = chunks.flatMap((c) => c.choices);
    const tokens = choices.flatMap((c) => c.logprobs?.content ?? []);
    expect(tokens).toHaveLength(TOKENS);
    expect(choices.at(-1)?.finish_reason).toBe('length');
    // Megabytes were made while the client read (next to) nothing: more than the sockets hold.
    expect(got.text.length).toBeGreaterThan(2_000_000);
    expect(got.bytesBeforeResume).toBeLessThan(got.text.length / 2);

    // The same request read at full speed gives the same text (the mock is deterministic).
    const fast = await rig.openai.chat.completions.create({ model: rig.model, messages: body.messages, max_tokens: TOKENS, ignore_eos: true } as never);
    const text = choices.map((c) => c.delta.content ?? '').join('');
    expect(text).toBe((fast as { choices: { message: { content: string } }[] }).choices[0].message.content);
  });
});
