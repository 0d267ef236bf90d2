/**
 * The header-routed policies (SMG docs concepts/routing/load-balancing.md, sticky-sessions.md):
 * consistent_hashing, prefix_hash and manual, and how routing headers are read.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/util/logger.js';
import { createPolicy, NO_HINTS, RoutingError, routingHintsFrom, type RoutingHints } from '../../src/workers/policies/index.js';
import { defaultPolicyOptions, type PolicyName, type PolicyOptions } from '../../src/workers/types.js';
import { captureLogger } from '../support/log-capture.js';
import { W } from '../support/routable-worker.js';

function policy(name: PolicyName, over: Partial<PolicyOptions> = {}, env: { random?: () => number; now?: () => number } = {}) {
  return createPolicy(name, {
    modelId: 'm',
    logger: silentLogger(),
    random: env.random ?? Math.random,
    options: { ...defaultPolicyOptions(), ...over },
    now: env.now,
  });
}

const hints = (headers: Record<string, string>): RoutingHints => routingHintsFrom(new Headers(headers));
const fleet = (n: number) => Array.from({ length: n }, (_, i) => new W(`w${i}`));
const tokens = (n: number, base = 0) => Array.from({ length: n }, (_, i) => base + i);

describe('routing headers', () => {
  it('reads X-SMG-Routing-Key (1–128 bytes; manual: visible ASCII), X-SMG-Target-Worker and the implicit keys', () => {
    expect(hints({ 'x-smg-routing-key': 'user-1' })).toMatchObject({ routingKey: 'user-1', manualKey: 'user-1' });
    expect(hints({ 'x-smg-routing-key': 'k'.repeat(128) }).routingKey).toBe('k'.repeat(128));
    expect(hints({ 'x-smg-routing-key': 'k'.repeat(129) })).toMatchObject({ routingKey: null, manualKey: 'k'.repeat(129) });
    expect(hints({ 'x-smg-routing-key': '' })).toMatchObject({ routingKey: null, manualKey: null });
    expect(hints({ 'x-smg-target-worker': '1' }).targetWorker).toBe('1');
    expect(hints({ cookie: 'c=1', 'x-forwarded-for': '10.0.0.1' }).implicitKey).toBe('10.0.0.1');
    expect(hints({ authorization: 'Bearer t', cookie: 'c=1' }).implicitKey).toBe('Bearer t');
    expect(hints({})).toEqual(NO_HINTS);
  });
});

describe('consistent_hashing', () => {
  it('pins a routing key to one worker, and moves only the keys of a worker that leaves', () => {
    const p = policy('consistent_hashing');
    const ws = fleet(4);
    const keys = Array.from({ length: 200 }, (_, i) => `session-${i}`);
    const before = new Map(keys.map((k) => [k, p.select(ws, [], hints({ 'x-smg-routing-key': k })).id]));
    for (const k of keys.slice(0, 20)) expect(p.select(ws, [], hints({ 'x-smg-routing-key': k })).id).toBe(before.get(k));
    // Every worker owns some keys (150 virtual nodes each spread them).
    expect(new Set(before.values()).size).toBe(4);

    const without = ws.filter((w) => w.id !== 'w2');
    for (const k of keys) {
      const now = p.select(without, [], hints({ 'x-smg-routing-key': k })).id;
      if (before.get(k) !== 'w2') expect(now, k).toBe(before.get(k));
      else expect(now).not.toBe('w2');
    }
  });

  it('X-SMG-Target-Worker wins; an index outside the available workers is refused, not rerouted', () => {
    const p = policy('consistent_hashing');
    const ws = fleet(3);
    expect(p.select(ws, [], hints({ 'x-smg-target-worker': '2', 'x-smg-routing-key': 'k' })).id).toBe('w2');
    expect(() => p.select(ws, [], hints({ 'x-smg-target-worker': '3' }))).toThrow(RoutingError);
    expect(() => p.select(ws, [], hints({ 'x-smg-target-worker': 'first' }))).toThrow(
      "X-SMG-Target-Worker 'first' names no available worker for model m (3 available, indexed from 0)",
    );
  });

  it('falls back to Authorization / X-Forwarded-For / Cookie, then to a random worker', () => {
    const p = policy('consistent_hashing', {}, { random: () => 0.99 });
    const ws = fleet(5);
    const a = p.select(ws, [], hints({ authorization: 'Bearer alice' })).id;
    for (let i = 0; i < 5; i++) expect(p.select(ws, [], hints({ authorization: 'Bearer alice' })).id).toBe(a);
    expect(p.select(ws, [], NO_HINTS).id).toBe('w4');
  });
});

describe('prefix_hash', () => {
  it('sends prompts that share their first --prefix-token-count tokens to one worker', () => {
    const p = policy('prefix_hash', { prefixTokenCount: 8 });
    const ws = fleet(4);
    const head = tokens(8, 1000);
    const first = p.select(ws, [...head, 1, 2, 3]).id;
    for (let i = 0; i < 10; i++) expect(p.select(ws, [...head, ...tokens(i + 1, 50 * i)]).id).toBe(first);
    const spread = new Set(Array.from({ length: 40 }, (_, i) => p.select(ws, tokens(8, i * 100)).id));
    expect(spread.size).toBeGreaterThan(1);
  });

  it('X-SMG-Routing-Key is hashed instead of the tokens', () => {
    const p = policy('prefix_hash');
    const ws = fleet(4);
    const k = p.select(ws, tokens(20), hints({ 'x-smg-routing-key': 'sess' })).id;
    for (let i = 0; i < 10; i++) expect(p.select(ws, tokens(20, i * 999), hints({ 'x-smg-routing-key': 'sess' })).id).toBe(k);
  });

  it('passes over an overloaded ring target for the least-loaded worker; no tokens → least loaded', () => {
    const p = policy('prefix_hash', { prefixTokenCount: 4, prefixHashLoadFactor: 1.25 });
    const ws = fleet(3);
    const prompt = tokens(4, 7);
    const target = p.select(ws, prompt);
    // Mean (60+0+0+1)/3 ≈ 20.3; bound = max(25.4, 30.3): 60 is over it.
    target.load = 60;
    const others = ws.filter((w) => w !== target);
    others[0].load = 5;
    expect(p.select(ws, prompt).id).toBe(others[1].id);
    // Within the bound the target keeps the prompt.
    target.load = 12;
    expect(p.select(ws, prompt).id).toBe(target.id);
    expect(p.select(ws, []).id).toBe(others[1].id);
  });
});

describe('manual', () => {
  it('pins each X-SMG-Routing-Key; adding workers moves no key; a key fails over and comes back', () => {
    let r = 0;
    const p = policy('manual', { assignmentMode: 'random' }, { random: () => [0.1, 0.6][r++ % 2] });
    const ws = fleet(2);
    const k = hints({ 'x-smg-routing-key': 'conv-1' });
    const home = p.select(ws, [], k);
    const grown = [...ws, ...fleet(4).slice(2)];
    for (let i = 0; i < 5; i++) expect(p.select(grown, [], k).id).toBe(home.id);

    const away = grown.filter((w) => w.id !== home.id);
    const second = p.select(away, [], k);
    expect(second.id).not.toBe(home.id);
    expect(p.select(away, [], k).id).toBe(second.id);
    // The first worker is remembered first: the key returns once it is available again.
    expect(p.select(grown, [], k).id).toBe(home.id);
  });

  it('assignment modes: min_load picks the least loaded, min_group the worker with the fewest keys; keyless requests are not pinned', () => {
    const ws = fleet(3);
    ws[0].load = 5;
    ws[1].load = 1;
    ws[2].load = 3;
    const minLoad = policy('manual', { assignmentMode: 'min_load' });
    expect(minLoad.select(ws, [], hints({ 'x-smg-routing-key': 'a' })).id).toBe('w1');

    const minGroup = policy('manual', { assignmentMode: 'min_group' }, { random: () => 0 });
    const placed = ['a', 'b', 'c', 'd', 'e', 'f'].map((key) => minGroup.select(ws, [], hints({ 'x-smg-routing-key': key })).id);
    expect(placed.sort()).toEqual(['w0', 'w0', 'w1', 'w1', 'w2', 'w2']);

    const keyless = policy('manual', { assignmentMode: 'min_load' }) as unknown as { size: number; select: typeof minLoad.select };
    keyless.select(ws, [], NO_HINTS);
    expect(keyless.size).toBe(0);
  });

  it('forgets keys idle longer than --max-idle-secs', () => {
    let now = 1_000_000;
    const cap = captureLogger();
    const p = createPolicy('manual', {
      modelId: 'm',
      logger: cap.logger,
      random: () => 0,
      options: { ...defaultPolicyOptions(), maxIdleSecs: 600, assignmentMode: 'min_group' },
      now: () => now,
    }) as unknown as { size: number; select: (ws: W[], t: number[], h: RoutingHints) => W };
    const ws = fleet(2);
    p.select(ws, [], hints({ 'x-smg-routing-key': 'old' }));
    now += 300_000;
    p.select(ws, [], hints({ 'x-smg-routing-key': 'fresh' }));
    expect(p.size).toBe(2);
    now += 400_000;
    p.select(ws, [], NO_HINTS);
    expect(p.size).toBe(1);
    expect(cap.find('manual policy for model m: evicted 1 idle routing keys, 1 remain')).toHaveLength(1);
  });
});
