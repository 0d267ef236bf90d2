/**
 * `--mock-rank-load RANK:RUNNING:WAITING:KV[,…]`: requests that some other frontend keeps on a
 * rank. The gateway never sees them, only their weight in the rank's scheduler_stats, which is
 * how a real rank shared with other clients (or stuck on long prompts) looks to rank selection.
 */
export interface RankLoad {
  rank: number;
  running: number;
  waiting: number;
  /** KV-cache fraction (0..1) the extra requests hold. */
  kv: number;
}

/**
 * A rank holding extra load steps even without the gateway's requests, so its stats keep coming;
 * with a zero token delay that would spin, hence a floor on the idle step time.
 */
export const EXTRA_LOAD_STEP_MS = 20;

const ENTRY = /^(\d+):(\d+):(\d+):(\d*\.?\d+)$/;

/** Throws a plain Error with the user-facing text; args.ts turns it into a usage error. */
export function parseRankLoads(spec: string | null, dpSize: number): RankLoad[] {
  if (spec === null || spec === '') return [];
  const out: RankLoad[] = [];
  for (const part of spec.split(',')) {
    const m = ENTRY.exec(part.trim());
    if (!m) throw new Error(`--mock-rank-load: expected RANK:RUNNING:WAITING:KV, got '${part}'`);
    const [rank, running, waiting, kv] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
    if (rank >= dpSize) throw new Error(`--mock-rank-load: rank ${rank} is outside the group of ${dpSize}`);
    if (kv > 1) throw new Error(`--mock-rank-load: KV usage must be within 0..1, got ${m[4]}`);
    if (out.some((l) => l.rank === rank)) throw new Error(`--mock-rank-load: rank ${rank} given twice`);
    out.push({ rank, running, waiting, kv });
  }
  return out;
}

/** What a rank with extra load reports: its own queue plus the extra, KV capped at full. */
export function withExtraLoad<T extends { numRunning: number; numWaiting: number; kvCacheUsage: number }>(
  stats: T,
  extra: RankLoad | null,
): T {
  if (!extra) return stats;
  return {
    ...stats,
    numRunning: stats.numRunning + extra.running,
    numWaiting: stats.numWaiting + extra.waiting,
    kvCacheUsage: Math.min(1, stats.kvCacheUsage + extra.kv),
  };
}
