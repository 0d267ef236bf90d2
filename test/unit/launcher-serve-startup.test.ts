// The pieces `smg serve` builds its start-up and its reaction to half-dead engines from:
// StartupTracker (src/cli/serve/startup-tracker.ts), halfDeadWatch (src/cli/serve/half-dead.ts)
// and OutputTail (src/launcher/output-tail.ts). Policies only; the e2e files run them for real.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { halfDeadWatch, HALF_DEAD_CONFIRM_MS, type HalfDeadEngines } from '../../src/cli/serve/half-dead.js';
import { StartupTracker, type EngineFailure } from '../../src/cli/serve/startup-tracker.js';
import { OutputTail } from '../../src/launcher/output-tail.js';
import type { StartupDisplay } from '../../src/launcher/startup-display.js';
import type { EngineDeathEvent } from '../../src/workers/engine-deaths.js';

function tracker(engines: number[]) {
  const shown: string[] = [];
  const verdicts: (readonly EngineFailure[])[] = [];
  const display: StartupDisplay = {
    launching: (i) => shown.push(`launching ${i}`),
    handshakeDone: (i, n) => shown.push(`done ${i} ${n}`),
    failed: (i, r) => shown.push(`failed ${i}: ${r}`),
    gatewayReady: (u) => shown.push(`gateway ${u}`),
    stop: () => shown.push('stop'),
  };
  const t = new StartupTracker({
    engines,
    display,
    rejoined: (i, n) => shown.push(`rejoined ${i} ${n}`),
    noEngine: (f) => verdicts.push(f),
  });
  return { t, shown, verdicts };
}

describe('StartupTracker', () => {
  it('gives up once every engine failed before any handshake, naming each failure in index order', () => {
    const { t, shown, verdicts } = tracker([0, 1]);
    t.gatewayReady('http://127.0.0.1:8080');
    t.failed(1, 'exited with code 1 before its handshake');
    expect(verdicts).toEqual([]);
    t.failed(0, 'did not complete its handshake: startup handshake timed out while waiting for HELLO after 2s');
    expect(verdicts).toEqual([
      [
        { index: 0, reason: 'did not complete its handshake: startup handshake timed out while waiting for HELLO after 2s' },
        { index: 1, reason: 'exited with code 1 before its handshake' },
      ],
    ]);
    // The "all ready" line of a healthy start is never shown.
    expect(shown).not.toContain('gateway http://127.0.0.1:8080');
    t.failed(0, 'again');
    expect(verdicts).toHaveLength(1);
  });

  it('runs on degraded when one engine completed its handshake', () => {
    const { t, shown, verdicts } = tracker([0, 1]);
    t.gatewayReady('http://x');
    t.handshakeDone(0, 4096);
    t.failed(1, 'exited with code 1 before its handshake');
    expect(verdicts).toEqual([]);
    expect(shown).toEqual(['done 0 4096', 'failed 1: exited with code 1 before its handshake', 'gateway http://x', 'stop']);
    expect(t.anyHandshake).toBe(true);
  });

  it('reports a handshake after start-up as a rejoin, and a later failure of a ready engine is not a start-up failure', () => {
    const { t, shown, verdicts } = tracker([0]);
    t.gatewayReady('http://x');
    t.handshakeDone(0, 4096);
    t.failed(0, 'exited with code 1 before its handshake');
    t.handshakeDone(0, 4096);
    expect(verdicts).toEqual([]);
    expect(shown.at(-1)).toBe('rejoined 0 4096');
  });
});

describe('halfDeadWatch', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const URL = 'ipc:///tmp/s/engine-31000';
  const death = (cause: EngineDeathEvent['cause']): EngineDeathEvent => ({
    workerId: 'w',
    url: URL,
    reason: 'engine input thread unresponsive',
    kind: 'dead',
    cause,
  });

  function engines(pids: (number | undefined)[]) {
    const stopped: string[] = [];
    const e: HalfDeadEngines = {
      runningPid: () => pids[0],
      stopEngine: async (url) => {
        stopped.push(url);
        return true;
      },
      shuttingDown: false,
    };
    return { e, stopped, setPid: (p: number | undefined) => (pids[0] = p) };
  }

  it('with --restart-engines stops an engine still running after the confirm delay', async () => {
    const { e, stopped } = engines([4242]);
    const logs: string[] = [];
    const w = halfDeadWatch({ engines: e, restartEngines: true, labelOf: () => 'engine-0', log: (l, m) => logs.push(`${l}: ${m}`) });
    w.onDeath(death('input_unresponsive'));
    await vi.advanceTimersByTimeAsync(HALF_DEAD_CONFIRM_MS - 1);
    expect(stopped).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(stopped).toEqual([URL]);
    expect(logs).toEqual([
      `warn: engine-0 (pid 4242, ${URL}) is still running, but its connection died (engine input thread unresponsive); stopping it so that it is restarted`,
    ]);
  });

  it('without --restart-engines says what to do and stops nothing', async () => {
    const { e, stopped } = engines([4242]);
    const logs: string[] = [];
    const w = halfDeadWatch({ engines: e, restartEngines: false, labelOf: () => 'engine-0', log: (l, m) => logs.push(m) });
    w.onDeath(death('disconnect'));
    await vi.advanceTimersByTimeAsync(HALF_DEAD_CONFIRM_MS);
    expect(stopped).toEqual([]);
    expect(logs[0]).toContain('Stop it (kill 4242) and restart smg serve, or run smg serve with --restart-engines');
  });

  it('ignores deaths the launcher declared, engines that exit meanwhile, workers it did not launch, and stops after stop()', async () => {
    const { e, stopped, setPid } = engines([4242]);
    const w = halfDeadWatch({ engines: e, restartEngines: true, labelOf: (u) => (u === URL ? 'engine-0' : undefined), log: () => {} });
    w.onDeath(death('external'));
    w.onDeath({ ...death('disconnect'), url: 'ipc:///elsewhere' });
    w.onDeath(death('sentinel'));
    setPid(undefined); // the process exited by itself, as after a sentinel
    await vi.advanceTimersByTimeAsync(HALF_DEAD_CONFIRM_MS);
    setPid(5000);
    w.onDeath(death('disconnect'));
    w.stop();
    await vi.advanceTimersByTimeAsync(HALF_DEAD_CONFIRM_MS);
    expect(stopped).toEqual([]);
  });
});

describe('OutputTail', () => {
  it('keeps the last non-blank lines across chunk boundaries, progress bars resolved to their last state', () => {
    const t = new OutputTail();
    t.push('one\ntw');
    t.push('o\n\n  \nprogress 10%\rprogress 100%\r\nlast without newline');
    expect(t.lines()).toEqual(['one', 'two', 'progress 100%', 'last without newline']);
    expect(t.lines(2)).toEqual(['progress 100%', 'last without newline']);
  });

  it('stays bounded under a flood', () => {
    const t = new OutputTail();
    for (let i = 0; i < 10_000; i++) t.push(`line ${i}\n`);
    expect(t.lines(3)).toEqual(['line 9997', 'line 9998', 'line 9999']);
    expect(t.lines().length).toBeLessThanOrEqual(12);
  });
});
