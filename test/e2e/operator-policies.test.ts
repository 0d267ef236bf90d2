/**
 * The header-routed policies through a real `smg launch` over two mock vLLM workers: a routing
 * key sticks to one worker under consistent_hashing and manual, X-SMG-Target-Worker picks a worker
 * by index (an index outside the fleet is a 503), and prefix_hash keeps a shared prompt head on
 * one worker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TINY_MODEL } from './support/proc.js';
import { type Pair, served, stopTwoWorkers, twoWorkers } from './support/two-workers.js';

afterEach(stopTwoWorkers);

async function chat(p: Pair, content: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${p.gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content }], max_tokens: 2 }),
  });
  await res.text();
  return res.status;
}

describe('header-routed policies over two ZMQ workers', () => {
  it('consistent_hashing: a routing key sticks; X-SMG-Target-Worker picks by index, out of range → 503', async () => {
    const p = await twoWorkers(['--policy', 'consistent_hashing']);
    for (let i = 0; i < 6; i++) expect(await chat(p, `turn ${i}`, { 'x-smg-routing-key': 'session-42' })).toBe(200);
    expect(served(p).sort()).toEqual([0, 6]);
    const before = served(p);
    expect(await chat(p, 'pinned', { 'x-smg-target-worker': '0' })).toBe(200);
    expect(await chat(p, 'pinned', { 'x-smg-target-worker': '1' })).toBe(200);
    expect(served(p)).toEqual([before[0] + 1, before[1] + 1]);
    expect(await chat(p, 'nowhere', { 'x-smg-target-worker': '2' })).toBe(503);
  });

  it('manual: each key is pinned; prefix_hash keeps a shared prompt head on one worker', async () => {
    const m = await twoWorkers(['--policy', 'manual', '--assignment-mode', 'min_group']);
    for (let i = 0; i < 4; i++) {
      expect(await chat(m, `a ${i}`, { 'x-smg-routing-key': 'alice' })).toBe(200);
      expect(await chat(m, `b ${i}`, { 'x-smg-routing-key': 'bob' })).toBe(200);
    }
    // min_group puts the second key on the other worker; each key stays where it started.
    expect(served(m)).toEqual([4, 4]);
    await stopTwoWorkers();

    const ph = await twoWorkers(['--policy', 'prefix_hash', '--prefix-token-count', '16']);
    const head = 'A long shared system preamble that both prompts begin with. ';
    for (let i = 0; i < 5; i++) expect(await chat(ph, `${head}question ${i}`)).toBe(200);
    expect(served(ph).sort()).toEqual([0, 5]);
  });
});
