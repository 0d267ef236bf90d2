/**
 * How a grouped worker of 2 mock ranks spreads a closed-loop load when the ranks are uneven.
 * Each scenario starts `smg launch --zmq-engine-count 2` plus mock engines, fires --requests
 * completions with --concurrency in flight, and prints per rank how many requests it received
 * (from the mocks' own `request added … rank=N` log lines) and its peak in-flight on /workers.
 *
 *   npx tsx scripts/rank-spread.ts [--requests 200] [--concurrency 16]
 */
import type { MockEngineProcess } from '../src/mock-engine/spawn.js';
import {
  complete,
  enginesOf,
  perRank,
  placements,
  startGateway,
  startRanks,
  startTsEngines,
  waitReady,
  type Gateway,
} from '../test/e2e/support/grouped-rig.js';

interface Scenario {
  name: string;
  backend?: 'vllm' | 'tokenspeed';
  /** One mock process per entry: [first rank (TokenSpeed: engine index), ranks in it, extra mock flags]. */
  procs: [number, number, string[]][];
}

const SCENARIOS: Scenario[] = [
  { name: 'even (both ranks 10 ms/token)', procs: [[0, 2, ['--mock-token-delay-ms', '10']]] },
  {
    name: 'rank 0 loaded by another client (--mock-rank-load 0:6:2:0.9)',
    procs: [[0, 2, ['--mock-token-delay-ms', '10', '--mock-rank-load', '0:6:2:0.9']]],
  },
  {
    name: 'rank 1 slowed (own process, 30 ms/token vs 10 ms/token)',
    procs: [
      [0, 1, ['--mock-token-delay-ms', '10']],
      [1, 1, ['--mock-token-delay-ms', '30']],
    ],
  },
  {
    name: 'TokenSpeed, engine 0 loaded (load snapshot in the batch tail)',
    backend: 'tokenspeed',
    procs: [[0, 2, ['--mock-token-delay-ms', '10', '--mock-rank-load', '0:6:2:0.9']]],
  },
];

function flag(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

async function runScenario(s: Scenario, requests: number, concurrency: number): Promise<string> {
  const gw: Gateway = await startGateway({ engineCount: 2, backend: s.backend });
  const mocks: MockEngineProcess[] = s.procs.map(([start, local, args]) =>
    s.backend === 'tokenspeed'
      ? startTsEngines({ port: gw.handshakePort, base: start, size: local, args })
      : startRanks({ port: gw.handshakePort, size: 2, local, startRank: start, args }),
  );
  try {
    await waitReady(gw, mocks);
    const peak = [0, 0];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const e of await enginesOf(gw)) peak[e.rank] = Math.max(peak[e.rank], e.in_flight);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    let next = 0;
    const latencies: number[] = [];
    const t0 = performance.now();
    // Closed loop: each lane sends its next request when the previous one returns.
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < requests) {
          const i = next++;
          const t = performance.now();
          await complete(gw, `spread ${i}`, 8 + (i % 17));
          latencies.push(performance.now() - t);
        }
      }),
    );
    const wall = performance.now() - t0;
    sampling = false;
    await sampler;
    const counts = perRank(placements(mocks), 2);
    latencies.sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)];
    return [
      `${s.name}`,
      `  served:         rank 0 = ${counts[0]}, rank 1 = ${counts[1]} (of ${requests})`,
      `  peak in-flight: rank 0 = ${peak[0]}, rank 1 = ${peak[1]}`,
      `  wall ${(wall / 1000).toFixed(2)} s, p50 latency ${p50.toFixed(0)} ms`,
    ].join('\n');
  } finally {
    await Promise.all([gw.stop(), ...mocks.map((m) => m.stop(2000))]);
  }
}

const requests = flag('--requests', 200);
const concurrency = flag('--concurrency', 16);
console.log(`rank spread: grouped worker of 2 mock ranks, ${requests} completions, concurrency ${concurrency}, max_tokens 8..24\n`);
for (const s of SCENARIOS) console.log(`${await runScenario(s, requests, concurrency)}\n`);
