/**
 * Streaming /generate: cumulative text (SGLang's default) against incremental_streaming_output,
 * side by side in one run against one `smg launch` + zero-delay `smg mock-engine`.
 *
 * For each stream length it sends C concurrent streams of exactly N tokens (ignore_eos) in each
 * mode and prints the gateway's CPU per token (from /proc/<pid>/stat) and the bytes on the wire
 * per token. Cumulative streaming re-sends the whole text every step, so both grow with N;
 * incremental stays flat.
 *
 *   npx tsx scripts/generate-stream-bench.ts [--lengths 512,2048,8192] [--concurrency 4] [--rounds 2]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_MODEL } from './bench/args.js';
import { Child, freePort, installSignalHandlers, procCpuSeconds, stopAll, waitReady } from './bench/procs.js';
import { workerUrl } from './bench/targets/engine-args.js';

const { values } = parseArgs({
  options: {
    lengths: { type: 'string', default: '512,2048,8192' },
    concurrency: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
    verbose: { type: 'boolean', default: false },
  },
});
const lengths = values.lengths.split(',').map(Number);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const maxLen = Math.max(...lengths);

async function stream(base: string, maxTokens: number, incremental: boolean): Promise<{ bytes: number; tokens: number }> {
  const res = await fetch(`${base}/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      text: 'Count for me.',
      stream: true,
      incremental_streaming_output: incremental,
      sampling_params: { max_new_tokens: maxTokens, ignore_eos: true, temperature: 0 },
    }),
  });
  if (!res.ok || !res.body) throw new Error(`/generate answered ${res.status}: ${await res.text()}`);
  let bytes = 0;
  let partial = '';
  let lastData = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    const frames = (partial + decoder.decode(chunk, { stream: true })).split('\n\n');
    partial = frames.pop() ?? '';
    for (const f of frames) if (f.startsWith('data: {')) lastData = f;
  }
  const last = JSON.parse(lastData.slice(6)) as { meta_info: { completion_tokens: number } };
  return { bytes, tokens: last.meta_info.completion_tokens };
}

async function main(): Promise<void> {
  installSignalHandlers(() => stopAll());
  const dir = await mkdtemp(join(tmpdir(), 'smg-genbench-'));
  const url = await workerUrl(dir, 'e0');
  const port = await freePort();
  const mport = await freePort();
  const gateway = new Child(
    'gateway',
    ['launch', '--worker-urls', url, '--backend', 'vllm', '--model-path', DEFAULT_MODEL, '--host', '127.0.0.1', '--port', String(port), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport), '--log-level', 'warn'],
    { verbose: values.verbose },
  );
  const { handshakePortFor } = await import('../src/engine/fnv-port.js');
  const engine = new Child(
    'engine',
    [
      'mock-engine', 'serve', DEFAULT_MODEL, '--headless', '--data-parallel-size', '1', '--data-parallel-size-local', '1',
      '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', String(handshakePortFor(url)),
      '--mock-token-delay-ms', '0', '--mock-mode', 'count', '--max-model-len', String(maxLen + 256), '--mock-log-level', 'warn',
    ],
    { verbose: values.verbose },
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitReady(base, gateway, 60_000, [engine]);
    // Warm the JIT on both paths.
    await Promise.all([stream(base, 256, false), stream(base, 256, true)]);
    const rows: string[][] = [];
    for (const n of lengths) {
      const figs: Record<string, { cpuUs: number; bytes: number }> = {};
      for (const incremental of [false, true]) {
        let cpu = 0;
        let bytes = 0;
        let tokens = 0;
        for (let r = 0; r < rounds; r++) {
          const before = procCpuSeconds(gateway.pid);
          const got = await Promise.all(Array.from({ length: concurrency }, () => stream(base, n, incremental)));
          cpu += procCpuSeconds(gateway.pid) - before;
          for (const g of got) {
            bytes += g.bytes;
            tokens += g.tokens;
          }
        }
        figs[incremental ? 'inc' : 'cum'] = { cpuUs: (cpu * 1e6) / tokens, bytes: bytes / tokens };
      }
      const { cum, inc } = figs;
      rows.push([String(n), cum.cpuUs.toFixed(1), inc.cpuUs.toFixed(1), (cum.cpuUs / inc.cpuUs).toFixed(1) + 'x', cum.bytes.toFixed(0), inc.bytes.toFixed(0)]);
    }
    const head = ['tokens/stream', 'cumulative µs/tok', 'incremental µs/tok', 'ratio', 'cumulative B/tok', 'incremental B/tok'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join('  ');
    console.log(`/generate streaming, gateway CPU and wire bytes per token (C=${concurrency}, ${rounds} rounds per cell)`);
    console.log(line(head));
    for (const r of rows) console.log(line(r));
  } finally {
    await stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
