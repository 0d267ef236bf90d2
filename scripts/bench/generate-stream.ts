/**
 * The /generate streaming phase (gateway only; the ceiling speaks chat only): C concurrent
 * streams of exactly N tokens (ignore_eos), once with cumulative text per chunk (SGLang's default,
 * the whole text so far every step) and once with incremental_streaming_output (only that step's
 * text), for a short and a long N. Per cell: the gateway's CPU per token and the bytes on the wire
 * per token. Incremental should cost the same per token at any length; cumulative grows with N.
 * Incremental cells run rounds until ≥ 16k tokens (the short streams cost a few ms in all), three
 * passes with the lengths alternating, and CPU is read from the gateway threads' schedstat (ns),
 * not the 10 ms ticks of /proc/<pid>/stat.
 * (scripts/generate-stream-bench.ts is the standalone, longer version of the same measurement.)
 */
import http from 'node:http';
import type { BenchOptions } from './args.js';
import { procCpuSecondsPrecise } from './procs.js';

export interface GenerateCell {
  tokensPerStream: number;
  incremental: boolean;
  streams: number;
  tokens: number;
  cpuUsPerToken: number;
  bytesPerToken: number;
  wallSec: number;
}

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

/** One /generate stream; resolves with the bytes received and the completion tokens it reported. */
export function generateStream(base: URL, maxTokens: number, incremental: boolean, agent: http.Agent, timeoutMs: number): Promise<{ bytes: number; tokens: number }> {
  const body = JSON.stringify({
    text: 'Count for me.',
    stream: true,
    incremental_streaming_output: incremental,
    sampling_params: { max_new_tokens: maxTokens, ignore_eos: true, temperature: 0 },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, path: '/generate', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        if (res.statusCode !== 200) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => reject(new Error(`/generate answered ${res.statusCode}: ${text.slice(0, 300)}`)));
          return;
        }
        // Only the last data frame matters (its meta_info); keep the unparsed tail, scan nothing else.
        let bytes = 0;
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          bytes += Buffer.byteLength(chunk);
          tail += chunk;
          // From the start of the last JSON frame on (it may still be incomplete).
          const last = tail.lastIndexOf('\n\ndata: {');
          if (last > 0) tail = tail.slice(last + 2);
        });
        res.on('end', () => {
          const frames = tail.split('\n\n').filter((f) => f.startsWith('data: {'));
          const lastData = frames[frames.length - 1];
          try {
            const meta = (JSON.parse(lastData.slice(6)) as { meta_info: { completion_tokens: number } }).meta_info;
            resolve({ bytes, tokens: meta.completion_tokens });
          } catch {
            reject(new Error(`/generate stream ended without a final data frame: ${tail.slice(-300)}`));
          }
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`/generate timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export async function runGenerate(baseUrl: string, pid: number, opts: BenchOptions): Promise<GenerateCell[]> {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true });
  const timeoutMs = opts.requestTimeoutSec * 1000;
  const c = opts.generateConcurrency;
  const cells: GenerateCell[] = [];
  try {
    // Warm both paths' JIT.
    for (let i = 0; i < 3; i++) await Promise.all([generateStream(base, 512, false, agent, timeoutMs), generateStream(base, 512, true, agent, timeoutMs)]);
    const sums = new Map<string, GenerateCell>();
    const measure = async (n: number, incremental: boolean, rounds: number) => {
      const cpu0 = procCpuSecondsPrecise(pid);
      const t0 = performance.now();
      const got: { bytes: number; tokens: number }[] = [];
      for (let r = 0; r < rounds; r++) got.push(...(await Promise.all(Array.from({ length: c }, () => generateStream(base, n, incremental, agent, timeoutMs)))));
      const key = `${n}/${incremental}`;
      const acc = sums.get(key) ?? { tokensPerStream: n, incremental, streams: 0, tokens: 0, cpuUsPerToken: 0, bytesPerToken: 0, wallSec: 0 };
      // Accumulated as totals here (CPU µs and bytes), divided by tokens at the end.
      acc.cpuUsPerToken += (procCpuSecondsPrecise(pid) - cpu0) * 1e6;
      acc.wallSec += (performance.now() - t0) / 1000;
      acc.streams += got.length;
      for (const g of got) {
        acc.tokens += g.tokens;
        acc.bytesPerToken += g.bytes;
      }
      sums.set(key, acc);
    };
    // Cumulative cells cost O(N²): one round each is plenty to show it.
    for (const n of opts.generateLengths) await measure(n, false, 1);
    // Incremental: ≥ 16k tokens per length and pass, the lengths alternating over three passes so
    // that drift on a shared box lands on all of them alike.
    for (let pass = 0; pass < 3; pass++) {
      for (const n of pass % 2 === 0 ? opts.generateLengths : [...opts.generateLengths].reverse()) {
        await measure(n, true, Math.max(1, Math.ceil(16_384 / (c * n))));
      }
    }
    for (const n of opts.generateLengths) {
      for (const incremental of [false, true]) {
        const cell = sums.get(`${n}/${incremental}`)!;
        cell.cpuUsPerToken /= cell.tokens;
        cell.bytesPerToken /= cell.tokens;
        log(`  gateway /generate ${n} tokens × ${cell.streams}, ${incremental ? 'incremental' : 'cumulative'}: ${cell.cpuUsPerToken.toFixed(1)} µs/token, ${cell.bytesPerToken.toFixed(0)} B/token`);
        cells.push(cell);
      }
    }
  } finally {
    agent.destroy();
  }
  return cells;
}
