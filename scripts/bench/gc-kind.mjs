/**
 * The name of a perf_hooks GC entry's kind (minor = scavenge, major = mark-compact), shared by the
 * served process's loop-probe.mjs and the bench's own loop probe (loop-stats.ts).
 */
import { constants } from 'node:perf_hooks';

const NAMES = new Map([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

/** `entry.detail.kind` of a 'gc' PerformanceEntry → its name, or null when absent. */
export function gcKindName(kind) {
  if (kind === undefined || kind === null) return null;
  return NAMES.get(kind) ?? String(kind);
}
