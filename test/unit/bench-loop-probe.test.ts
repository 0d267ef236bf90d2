import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LOOP_PROBE_FILE, LOOP_PROBE_MARK, type LoopStats } from '../../scripts/bench/loop-stats.js';

/**
 * The bench's "longest turn" (loop-probe.mjs) must read a loop of short turns as short turns. Read
 * without bringing schedstat's on-CPU field up to date first, a loop that never sleeps (here 0.2 ms
 * callbacks back to back) showed 3-4 ms "turns": the kernel folds the running thread's time in at
 * its ticks (4 ms at HZ=250), so one 1 ms read carried the time of several.
 */
describe('bench loop probe: longest turn', () => {
  it('reads back-to-back 0.2 ms callbacks as turns of about the 1 ms timer period', async () => {
    const spin = `
      let stop = false;
      const spin = () => { const end = performance.now() + 0.2; while (performance.now() < end); if (!stop) setImmediate(spin); };
      setImmediate(spin);
      process.on('SIGTERM', () => { stop = true; });
      process.stdout.write('ready\\n');`;
    const child = spawn(process.execPath, ['--import', LOOP_PROBE_FILE, '-e', spin], {
      env: { ...process.env, SMG_BENCH_LOOP_TURNS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const lines: string[] = [];
      let stderr = '';
      const waiters: Array<() => void> = [];
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        for (const l of d.split('\n')) if (l.startsWith(LOOP_PROBE_MARK)) lines.push(l.slice(LOOP_PROBE_MARK.length));
        for (const w of waiters.splice(0)) w();
      });
      const until = (what: () => boolean, ms: number) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`timed out; stderr: ${stderr}`)), ms);
          const check = () => (what() ? (clearTimeout(timer), resolve()) : waiters.push(check));
          check();
        });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      // Let the loop warm up, then measure one 2 s window.
      await new Promise((r) => setTimeout(r, 300));
      child.kill('SIGUSR2');
      await until(() => lines.length >= 1, 20_000);
      await new Promise((r) => setTimeout(r, 2000));
      child.kill('SIGUSR2');
      await until(() => lines.length >= 2, 20_000);
      const stats = JSON.parse(lines[1]) as LoopStats;
      expect(stats.turnMaxMs).not.toBeNull();
      // ~1 ms timer period + one 0.2 ms callback; the unrefreshed read gave 3-4 ms here.
      expect(stats.turnMaxMs!).toBeLessThan(3);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
