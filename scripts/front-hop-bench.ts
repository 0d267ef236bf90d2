/**
 * What the front hop costs: one `smg serve` host (mock engine, no token delay) alone, and the
 * same host behind a front `smg launch --worker-urls http://…`, measured side by side in one run
 * with the two interleaved (host, front, host, front, …) so both see the same machine.
 *
 *   npx tsx scripts/front-hop-bench.ts [--requests 400] [--concurrency 1,16] [--max-tokens 16] [--stream]
 *
 * Per phase: latency (mean, p50, p99 of whole requests, or time to first byte with --stream),
 * throughput, and CPU per request from /proc (utime+stime of the host's gateway and engine
 * processes, and of the front), so "front + host" vs "host alone" gives the front's own CPU.
 * A third path, a bare node:http proxy with the same keep-alive agent, is the floor any Node
 * front would pay for the extra hop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freeTcpPort } from '../src/util/tcp-ports.js';

const ROOT = resolve(import.meta.dirname, '..');
const SMG = join(ROOT, 'bin', 'smg.js');
const MODEL = join(ROOT, 'test', 'fixtures', 'tiny-tokenizer');
const CLK_TCK = 100;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const REQUESTS = Number(arg('requests', '400'));
const CONCURRENCY = arg('concurrency', '1,16').split(',').map(Number);
const MAX_TOKENS = Number(arg('max-tokens', '16'));
const STREAM = process.argv.includes('--stream');
const ROUNDS = Number(arg('rounds', '3'));

/** The floor: a node:http proxy with nothing else (argv: port, target URL). */
const BARE_PROXY = `
const http = require('node:http');
const [port, target] = [Number(process.argv[1]), new URL(process.argv[2])];
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, agent,
      headers: { ...req.headers, host: target.host, 'content-length': body.length } }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.end(body);
  });
}).listen(port, '127.0.0.1');
`;

interface Proc {
  child: ChildProcess;
  out: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(process.execPath, [SMG, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { child, out: '' };
  child.stdout!.on('data', (d: Buffer) => (p.out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (p.out += d.toString()));
  return p;
}

async function cpuTicks(pids: number[]): Promise<number> {
  let sum = 0;
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += Number(f[11]) + Number(f[12]); // utime, stime
    } catch {
      // gone
    }
  }
  return sum;
}

async function waitOk(url: string, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${url}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const BODY = (i: number) =>
  JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `request ${i % 50}` }], max_tokens: MAX_TOKENS, stream: STREAM });

/** One request: whole-request latency (or time to first byte when streaming), in ms. */
async function one(base: string, i: number): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY(i) });
  if (STREAM) {
    const reader = res.body!.getReader();
    await reader.read();
    const ttfb = performance.now() - t0;
    while (!(await reader.read()).done);
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return ttfb;
  }
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  return performance.now() - t0;
}

interface Phase {
  latencies: number[];
  wallMs: number;
  hostTicks: number;
  frontTicks: number;
}

async function phase(base: string, concurrency: number, hostPids: number[], frontPids: number[]): Promise<Phase> {
  const latencies: number[] = [];
  const [h0, f0] = [await cpuTicks(hostPids), await cpuTicks(frontPids)];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < REQUESTS; i = next++) latencies.push(await one(base, i));
    }),
  );
  const wallMs = performance.now() - t0;
  const [h1, f1] = [await cpuTicks(hostPids), await cpuTicks(frontPids)];
  return { latencies, wallMs, hostTicks: h1 - h0, frontTicks: f1 - f0 };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const msPerReq = (ticks: number) => ((ticks / CLK_TCK) * 1000) / REQUESTS;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'smg-hop-'));
  const [hostPort, hostMetrics, frontPort, frontMetrics, workerBase] = await Promise.all([0, 1, 2, 3, 4].map(() => freeTcpPort()));
  const host = run(
    [
      'serve', '--backend', 'vllm', '--connection-mode', 'zmq', '--python', join(ROOT, 'bin', 'mock-python'), '--model', MODEL,
      '--host', '127.0.0.2', '--port', String(hostPort), '--worker-base-port', String(workerBase),
      '--router-prometheus-host', '127.0.0.2', '--router-prometheus-port', String(hostMetrics), '--router-log-level', 'warn',
    ],
    { SMG_ZMQ_SOCKET_DIR: dir },
  );
  const hostBase = `http://127.0.0.2:${hostPort}`;
  const front = run([
    'launch', '--host', '127.0.0.1', '--port', String(frontPort), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(frontMetrics),
    '--worker-urls', hostBase, '--health-check-endpoint', '/readiness', '--log-level', 'warn',
  ]);
  const frontBase = `http://127.0.0.1:${frontPort}`;
  const barePort = await freeTcpPort();
  const bare = spawn(process.execPath, ['-e', BARE_PROXY, String(barePort), hostBase], { stdio: 'ignore' });
  const bareBase = `http://127.0.0.1:${barePort}`;
  try {
    await waitOk(`${hostBase}/readiness`);
    await waitOk(`${frontBase}/readiness`);
    const engines = [...host.out.matchAll(/\(pid (\d+),/g)].map((m) => Number(m[1]));
    const hostPids = [host.child.pid!, ...engines];
    const frontPids = [front.child.pid!];
    const barePids = [bare.pid!];
    await waitOk(`${bareBase}/readiness`);
    // Warm both paths (JIT, keep-alive sockets, the host's prompt cache).
    for (let i = 0; i < 200; i++) await one(frontBase, i);
    for (let i = 0; i < 200; i++) await one(hostBase, i);
    for (let i = 0; i < 200; i++) await one(bareBase, i);

    const what = STREAM ? 'time to first byte' : 'request latency';
    console.log(`front hop: ${REQUESTS} chat requests per phase, max_tokens=${MAX_TOKENS}, ${STREAM ? 'stream' : 'JSON'}, ${ROUNDS} interleaved rounds; ${what}`);
    console.log('| concurrency | path | mean ms | p50 ms | p99 ms | req/s | CPU ms/req host | CPU ms/req front (or bare proxy) | CPU ms/req total |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const c of CONCURRENCY) {
      const acc: Record<'host' | 'front' | 'bare', Phase[]> = { host: [], front: [], bare: [] };
      for (let r = 0; r < ROUNDS; r++) {
        acc.host.push(await phase(hostBase, c, hostPids, frontPids));
        acc.front.push(await phase(frontBase, c, hostPids, frontPids));
        acc.bare.push(await phase(bareBase, c, hostPids, barePids));
      }
      const rows: Record<string, number[]> = {};
      const labels = { host: 'host alone', front: 'front + host', bare: 'bare node:http proxy + host' };
      for (const path of ['host', 'front', 'bare'] as const) {
        const lat = acc[path].flatMap((p) => p.latencies);
        const wall = acc[path].reduce((s, p) => s + p.wallMs, 0);
        const hostCpu = mean(acc[path].map((p) => msPerReq(p.hostTicks)));
        const frontCpu = mean(acc[path].map((p) => msPerReq(p.frontTicks)));
        rows[path] = [mean(lat), pct(lat, 50), pct(lat, 99), (REQUESTS * ROUNDS) / (wall / 1000), hostCpu, frontCpu, hostCpu + frontCpu];
        console.log(`| ${c} | ${labels[path]} | ${rows[path].map((v, i) => (i === 3 ? v.toFixed(0) : v.toFixed(2))).join(' | ')} |`);
      }
      const d = rows.front.map((v, i) => v - rows.host[i]);
      console.log(`| ${c} | **front hop adds** | ${d[0].toFixed(2)} | ${d[1].toFixed(2)} | ${d[2].toFixed(2)} | | | | ${d[6].toFixed(2)} |`);
    }
  } finally {
    front.child.kill('SIGKILL');
    bare.kill('SIGKILL');
    host.child.kill('SIGTERM');
    await new Promise((r) => host.child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
