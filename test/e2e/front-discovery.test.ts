/**
 * Kubernetes discovery with real processes: a front `smg launch --service-discovery` runs the real
 * @kubernetes/client-node informer against the API-server double (test/e2e/support/
 * kube-api-double.ts), and the pods it lists point at two real `smg serve` hosts. Pods that turn
 * Ready become workers; NotReady, terminating and deleted pods are drained and removed; a dropped
 * watch and a 410 Gone are survived; a worker added by hand is never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeTcpPort } from '../../src/mock-engine/spawn.js';
import { TINY_MODEL, waitFor } from './support/proc.js';
import { frontWorkers, hostReady, startFront, startHost, workerIs, type Front, type Host } from './support/hosts-kit.js';
import { KubeApiDouble, type PodShape } from './support/kube-api-double.js';

let api: KubeApiDouble;
let hosts: Host[] = [];
let front: Front;
let port: number;
const LABELS = { app: 'smg-host' };
const podA = (over: Partial<PodShape> = {}): PodShape => ({ name: 'host-a', ip: '127.0.0.2', labels: LABELS, ...over });
const podB = (over: Partial<PodShape> = {}): PodShape => ({ name: 'host-b', ip: '127.0.0.3', labels: LABELS, ...over });

beforeAll(async () => {
  port = await freeTcpPort();
  api = new KubeApiDouble();
  await api.start();
  hosts = await Promise.all(['127.0.0.2', '127.0.0.3'].map((a) => startHost(a, port, ['--mock-token-delay-ms', '20'])));
  api.put(podA());
  api.put(podB({ phase: 'Pending', ready: false }));
  // Same IP as host-b but another app: the selector keeps it out.
  api.put({ name: 'other', ip: '127.0.0.3', labels: { app: 'other' } });
  front = await startFront(
    [
      '--service-discovery', '--selector', 'app=smg-host', '--service-discovery-port', String(port), '--service-discovery-namespace', 'default',
      '--health-check-interval-secs', '1', '--health-check-endpoint', '/readiness',
      // A removed worker drains: its requests in flight finish first (bounded by this settle).
      '--drain-settle-secs', '5',
    ],
    { KUBECONFIG: await api.kubeconfig() },
  );
  await Promise.all(hosts.map((h) => hostReady(h)));
}, 90_000);

afterAll(async () => {
  await front?.cleanup();
  await Promise.all(hosts.map((h) => h.cleanup()));
  await api?.stop();
});

const urlA = () => `http://127.0.0.2:${port}`;
const urlB = () => `http://127.0.0.3:${port}`;
const urls = async () => (await frontWorkers(front)).map((w) => w.url).sort();
const until = (what: string, check: () => Promise<boolean>) =>
  waitFor(what, async () => ((await check()) ? true : undefined), 20_000, { detail: () => front.proc.output().slice(-4000) });

async function chat(content: string): Promise<number> {
  const res = await fetch(`${front.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content }], max_tokens: 2 }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('Kubernetes pod discovery (e2e, API-server double)', () => {
  it('adds Ready pods, drains NotReady ones, survives a dropped watch and 410 Gone, and leaves hand-added workers alone', async () => {
    // Only the Running + Ready pod that matches the selector is a worker.
    await workerIs(front, urlA(), 'ready');
    expect(await urls()).toEqual([urlA()]);
    expect(await chat('hello')).toBe(200);

    // host-b turns Ready: added.
    api.put(podB());
    await workerIs(front, urlB(), 'ready');
    expect(await urls()).toEqual([urlA(), urlB()]);

    // The watch is cut, and host-a turns NotReady while nobody watches: a stream in flight on it
    // finishes (drain), then the worker is removed.
    api.delete('host-b');
    await until('host-b removed', async () => !(await urls()).includes(urlB()));
    const stream = await fetch(`${front.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: TINY_MODEL, messages: [{ role: 'user', content: 'long' }], max_tokens: 60, stream: true }),
    });
    const reader = stream.body!.getReader();
    await reader.read();
    const watchesBefore = api.watches;
    api.dropWatches();
    api.put(podA({ ready: false }));
    await until('host-a draining', async () => (await frontWorkers(front)).find((w) => w.url === urlA())?.status === 'draining');
    let text = '';
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      text += new TextDecoder().decode(r.value);
    }
    expect(text).toMatch(/"finish_reason":"(length|stop)"/);
    expect(text).not.toContain('Stream error');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    await until('host-a removed', async () => (await urls()).length === 0);
    expect(api.watches).toBeGreaterThan(watchesBefore);

    // History is compacted and the watch cut again: the informer gets 410 Gone and re-lists.
    api.bookmark();
    const listsBefore = api.lists;
    api.expireHistory();
    api.dropWatches();
    api.put(podA());
    await workerIs(front, urlA(), 'ready');
    await until('re-listed after 410', async () => api.gone > 0 && api.lists > listsBefore);

    // A terminating pod is drained and removed like a NotReady one.
    api.put(podA({ deleting: true }));
    await until('terminating host-a removed', async () => (await urls()).length === 0);

    // A worker added by hand at a pod's URL is never removed by discovery.
    const added = await fetch(`${front.base}/workers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: urlB() }) });
    expect(added.status).toBe(202);
    await workerIs(front, urlB(), 'ready');
    api.put(podB());
    api.put(podB({ ready: false }));
    api.delete('host-b');
    api.put(podA());
    await workerIs(front, urlA(), 'ready');
    expect(await urls()).toEqual([urlA(), urlB()]);
    expect(await chat('still here')).toBe(200);
  }, 60_000);
});
