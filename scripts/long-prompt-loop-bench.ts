/**
 * Long prompts and arrival bursts against the event loop (issue 30), for one gateway tree:
 *
 *   npx tsx scripts/long-prompt-loop-bench.ts [--tree DIR] [--tokens 131072] [--messages 1]
 *        [--solo 6] [--streams 192] [--window 6] [--arrivals 1000] [--ceiling] [--profile DIR]
 *
 * A fresh `smg launch` from DIR (default this checkout; e.g. /work/wt-ref for the base commit) in
 * front of one mock engine paced at 10 ms per step, then:
 *   solo      --solo long prompts one after another, no other load: the gateway's loop busy time
 *             and CPU per long prompt, and the loop delay max (monitorEventLoopDelay at 1 ms
 *             resolution: about the longest turn the loop was held)
 *   paced     --streams background streams alone, then with long prompts arriving one at a time
 *             (scripts/bench/long-prompt.ts): the streams' per-arrival gap p99 both ways
 *   arrivals  --arrivals streams (max_tokens 16) opened at once on fresh connections: TTFT p50/p99;
 *             with --ceiling the same against scripts/bench/ceiling-server.ts paced alike
 * --messages N > 1 splits the long prompt into N alternating user/assistant messages (a long
 * conversation) instead of one user message. Each long request is distinct (its number leads).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBenchArgs } from './bench/args.js';
import { bodyBytes, createAgent, httpRequestFn } from './bench/http-client.js';
import { runLongPrompt } from './bench/long-prompt.js';
import { readCpu, type RequestResult } from './bench/phase.js';
import { stopAll } from './bench/procs.js';
import { Samples, percentile } from './bench/stats.js';
import { startCeiling } from './bench/targets/ceiling.js';
import type { GatewayHandle } from './bench/targets/gateway.js';
import { buildWorkloads } from './bench/workloads.js';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
    tokens: { type: 'string', default: '131072' },
    messages: { type: 'string', default: '1' },
    solo: { type: 'string', default: '6' },
    streams: { type: 'string', default: '192' },
    window: { type: 'string', default: '6' },
    arrivals: { type: 'string', default: '1000' },
    ceiling: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'step-ms': { type: 'string', default: '10' },
    // On a box shared with other loads: run the gateway's and the engine's main threads and this
    // client at a higher priority (renice, needs root), so the loop figures show the gateway's own
    // turns rather than the scheduler's preemptions.
    renice: { type: 'boolean', default: false },
    // The long requests ask for more tokens than the context leaves: the gateway does all its prompt
    // work (parse, render, encode, count) and answers 400 before any ADD, so the engine does
    // nothing for them. Tells the gateway's share of the paced streams' gap from the engine's.
    'long-refused': { type: 'boolean', default: false },
    // A pause before each long request (ms): with --long-refused, the rate of accepted ones.
    'long-pause-ms': { type: 'string', default: '0' },
  },
});
const log = (m: string) => process.stderr.write(`lp-bench: ${m}\n`);
const tokens = Number(values.tokens);
const nMessages = Number(values.messages);
const stepMs = Number(values['step-ms']);
const argv = [
  '--long-prompt-tokens', String(tokens), '--long-streams', String(Math.max(1, Number(values.streams))), '--long-concurrency', '1',
  '--long-stream-max-tokens', '1024', '--long-token-delay-ms', String(stepMs), '--token-delay-ms', String(stepMs),
  '--max-tokens', '16', '--concurrency', String(Math.max(1, Number(values.arrivals))), '--request-timeout', '120',
];
if (values.profile) argv.push('--profile', resolve(values.profile));
const opts = parseBenchArgs(argv)!;
// The workloads (calibrated long prompt) come from this checkout; the gateway from --tree.
const w = await buildWorkloads(opts);
const dir = await mkdtemp(join(tmpdir(), 'smg-lpbench-'));
const tree = resolve(values.tree!);
const gwMod = (await import(pathToFileURL(join(tree, 'scripts/bench/targets/gateway.ts')).href)) as typeof import('./bench/targets/gateway.js');

const p = (xs: number[], q: number) => percentile([...xs].sort((a, b) => a - b), q);
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

/** The long prompt's body for request `seq`: one message, or a conversation of `nMessages`. */
function longBodyFor(model: string): (seq: number) => Buffer {
  const one = JSON.parse(bodyBytes(w.httpBody('long', model)).toString('utf8')) as {
    messages: Array<{ role: string; content: string }>;
  };
  const text = one.messages[0].content;
  if (values['long-refused']) (one as Record<string, unknown>).max_tokens = 1 << 20;
  return (seq) => {
    const body = { ...one };
    if (nMessages <= 1) {
      body.messages = [{ role: 'user', content: `Request ${seq}. ${text}` }];
    } else {
      const per = Math.ceil(text.length / nMessages);
      body.messages = Array.from({ length: nMessages }, (_, i) => ({
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: `${i === 0 ? `Request ${seq}. ` : ''}${text.slice(i * per, (i + 1) * per)}`,
      }));
      body.messages[nMessages - 1].role = 'user';
    }
    return Buffer.from(JSON.stringify(body));
  };
}

async function arrivalsBurst(host: string, port: number, n: number, body: Buffer) {
  const agent = createAgent();
  const fn = httpRequestFn({ host, port, body, timeoutMs: 60_000 }, agent);
  const t0 = performance.now();
  const rs: RequestResult[] = await Promise.all(Array.from({ length: n }, (_, i) => fn(i, { gaps: new Samples() })));
  const wall = performance.now() - t0;
  agent.destroy();
  const ttft = rs.filter((r) => r.ok).map((r) => r.ttftMs);
  const failed = rs.filter((r) => !r.ok);
  return { ok: ttft.length, failed: failed.length, firstError: failed[0]?.error ?? null, p50: p(ttft, 50), p99: p(ttft, 99), wall };
}

let gw: GatewayHandle | null = null;
const out: string[] = [`tree ${tree}; long prompt ${tokens} tokens in ${nMessages} message(s); engine step ${stepMs} ms`];
try {
  await mkdir(join(dir, 'gw'));
  // The gateway's 'long' requests carry this script's bodies (one message or a conversation).
  // A conversation adds each message's role markers (~6 tokens with Qwen3's template): the mock
  // engine's --max-model-len is sized from this count.
  const wLong: typeof w = {
    ...w,
    longPromptTokens: w.longPromptTokens + (nMessages > 1 ? nMessages * 8 : 0),
    httpBody: (kind, model) => (kind === 'long' ? longBodyFor(model) : w.httpBody(kind, model)),
  };
  gw = await gwMod.startGateway(opts, join(dir, 'gw'), wLong, values.ceiling);
  const gwPort = await apiPort(gw.pid);
  if (values.renice) renice([gw.pid, ...gw.cpu.filter((c) => c.name === 'engine').map((c) => c.pid as number), process.pid]);
  const models = (await (await fetch(`http://127.0.0.1:${gwPort}/v1/models`)).json()) as { data: { id: string }[] };
  const modelId = models.data[0].id;
  log(`gateway counts ${gw.longPromptTokens} tokens in the long prompt`);
  out.push(`gateway counts ${gw.longPromptTokens} prompt tokens per long request`);
  const longFn = gw.fn('long')!;
  let seq = 1_000_000;

  // solo: warm up then measure
  const nSolo = Number(values.solo);
  if (nSolo > 0) {
    for (let i = 0; i < 3; i++) await longFn(seq++, { gaps: new Samples() });
    await gw.loop.reset();
    const cpu0 = readCpu(gw.cpu[0]);
    const ttfts: number[] = [];
    let failed = 0;
    let err = '';
    for (let i = 0; i < nSolo; i++) {
      const r = await longFn(seq++, { gaps: new Samples() });
      if (r.ok) ttfts.push(r.ttftMs);
      else {
        failed++;
        err = r.error ?? '';
      }
    }
    const cpu = readCpu(gw.cpu[0]) - cpu0;
    const loop = await gw.loop.read();
    out.push(
      `solo: ${ttfts.length} ok ${failed} failed${err ? ` (${err.slice(0, 200)})` : ''}; per long prompt: gateway CPU ${f1((cpu * 1000) / nSolo)} ms, ` +
        `loop busy ${f1((loop?.busyMs ?? NaN) / nSolo)} ms; loop delay max ${f1(loop?.delayMaxMs ?? NaN)} ms, p99 ${f1(loop?.delayP99Ms ?? NaN)} ms; ` +
        `gc max ${f1(loop?.gcMaxMs ?? NaN)} ms; TTFT p50 ${f1(p(ttfts, 50))} ms`,
    );
  }

  const nStreams = Number(values.streams);
  if (nStreams > 0) {
    const bg = gw.fn('background')!;
    const r = await runLongPrompt({
      background: bg,
      long: async (s, rec) => {
        const pause = Number(values['long-pause-ms']);
        if (pause > 0) await new Promise((r) => setTimeout(r, pause));
        return longFn(seq + s, rec);
      },
      streams: nStreams,
      longConcurrency: 1,
      windowMs: Number(values.window) * 1000,
      warmMs: 2000,
      loop: gw.loop,
      cpu: gw.cpu,
    });
    seq += 100_000;
    const a = r.alone;
    const b = r.withLong;
    out.push(
      `paced: ${nStreams} streams alone: gap p99 ${f1(a.bgGap.p99)} ms (max ${f1(a.bgGap.max)}), loop delay max ${f1(a.loop?.delayMaxMs ?? NaN)} ms; ` +
        `with long prompts (${b.long?.ok} ok, ${b.long?.failed} failed, ${f1(b.long?.perSec ?? NaN)}/s): gap p99 ${f1(b.bgGap.p99)} ms (max ${f1(b.bgGap.max)}), ` +
        `loop delay max ${f1(b.loop?.delayMaxMs ?? NaN)} ms; ratio ${(b.bgGap.p99 / a.bgGap.p99).toFixed(2)}x` +
        (r.errors.length ? `; errors: ${r.errors.join(' | ').slice(0, 300)}` : ''),
    );
  }

  const nArr = Number(values.arrivals);
  if (nArr > 0) {
    const body = w.httpBody('stream', modelId) as Buffer;
    await arrivalsBurst('127.0.0.1', gwPort, Math.min(200, nArr), body);
    await gw.loop.reset();
    const g = await arrivalsBurst('127.0.0.1', gwPort, nArr, body);
    const gl = await gw.loop.read();
    out.push(
      `arrivals ${nArr} at once, gateway: ${g.ok} ok ${g.failed} failed${g.firstError ? ` (${g.firstError.slice(0, 120)})` : ''}; TTFT p50 ${f1(g.p50)} ms p99 ${f1(g.p99)} ms; ` +
        `all done in ${f1(g.wall)} ms; loop delay max ${f1(gl?.delayMaxMs ?? NaN)} ms`,
    );
    if (values.ceiling && gw.frames) {
      const frames = gw.frames;
      await gw.close();
      gw = null;
      await mkdir(join(dir, 'ceil'));
      const ceil = await startCeiling(opts, join(dir, 'ceil'), w, frames, stepMs);
      try {
        const port = await apiPort(ceil.serverPid as number, '/readiness');
        if (values.renice) renice([ceil.serverPid as number]);
        await arrivalsBurst('127.0.0.1', port, Math.min(200, nArr), body);
        const c = await arrivalsBurst('127.0.0.1', port, nArr, body);
        out.push(
          `arrivals ${nArr} at once, ceiling: ${c.ok} ok ${c.failed} failed; TTFT p50 ${f1(c.p50)} ms p99 ${f1(c.p99)} ms; ` +
            `gateway/ceiling TTFT p50 ${(g.p50 / c.p50).toFixed(2)}x`,
        );
      } finally {
        await ceil.close();
      }
    }
  }
} finally {
  if (gw) await gw.close();
  await stopAll();
  await rm(dir, { recursive: true, force: true });
}
process.stdout.write(`${out.join('\n')}\n`);

/** Main threads only (Linux nice is per thread): the prompt threads keep the default priority. */
function renice(pids: number[]): void {
  for (const pid of pids) execFileSync('renice', ['-n', '-10', '-p', String(pid)], { stdio: 'ignore' });
}

/**
 * The targets do not expose their port. The child's listening loopback sockets (from /proc) are
 * tried in turn: the API port is the one answering /v1/models (or any path, for the ceiling).
 */
async function apiPort(pid: number, path = '/v1/models'): Promise<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9])) continue;
    const port = parseInt(cols[1].split(':')[1], 16);
    const res = await fetch(`http://127.0.0.1:${port}${path}`).catch(() => null);
    const body = res ? await res.text() : '';
    if (res?.status === 200 && (body.includes('"data"') || path !== '/v1/models')) return port;
  }
  throw new Error(`no API port found for pid ${pid}`);
}
