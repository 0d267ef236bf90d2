/**
 * The main thread's schedstat (/proc/self/task/<pid>/schedstat: ns on a CPU, ns waiting on a run
 * queue), read up to date: the on-CPU field is the thread's sum_exec_runtime as the scheduler last
 * folded it in (update_curr: at its ticks, every 4 ms at HZ=250, and at switches and wakeups), not
 * as of the read, so a loop busy for several ms without sleeping read 0, 0, 0 then ~4 ms at 1 ms
 * intervals. getrusage(RUSAGE_SELF) (process.cpuUsage) folds the calling thread's pending time in
 * first (thread_group_cputime -> task_sched_runtime(current), Linux commit a1eb1411b4e4); with it
 * a 1 ms read never exceeds its wall time. The call walks the process's threads: a few µs a read.
 * Used by loop-probe.mjs and scripts/turn-tracer.mjs (both preloaded with node --import).
 */
import { openSync, readSync } from 'node:fs';

/** A reader filling `out` with [ns on a CPU, ns waiting]; throws where schedstat is unreadable. */
export function mainThreadSchedstat() {
  const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
  const buf = Buffer.alloc(96);
  // "<ns on cpu> <ns waiting on a runqueue> <timeslices>"
  return (out) => {
    process.cpuUsage();
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('latin1', 0, n);
    const a = text.indexOf(' ');
    out[0] = Number(text.slice(0, a));
    out[1] = Number(text.slice(a + 1, text.indexOf(' ', a + 1)));
  };
}
