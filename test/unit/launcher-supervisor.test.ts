// Engine supervision policy with fake children and fake timers (spec cli-and-api §2.11).
// Covers §3 behaviours: 138 (an already-dead process group is tolerated; the child is still waited
// on once), 139 (wait times out → SIGTERM then SIGKILL to the same group: 2 kill calls), 140 (no
// engines → no-op). Also: one shared 30 s deadline, idempotent shutdown, engines exiting on their own
// are reported (clone addition), opt-in restart with exponential backoff, spawn failures.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EnginePlan } from '../../src/launcher/engine-plan.js';
import type { ChildHandle, ExitInfo, SpawnOptions } from '../../src/launcher/engine-process.js';
import { Supervisor, type EngineExitEvent, type EngineRestartEvent, type SupervisorOptions } from '../../src/launcher/supervisor.js';

type OnTerm = 'exit' | 'ignore' | 'esrch';

class FakeChild implements ChildHandle {
  readonly exited: Promise<ExitInfo>;
  private resolve!: (info: ExitInfo) => void;
  alive = true;
  constructor(
    readonly pid: number,
    readonly onTerm: OnTerm,
  ) {
    this.exited = new Promise((r) => (this.resolve = r));
  }
  exit(code: number | null, signal: NodeJS.Signals | null = null): void {
    if (!this.alive) return;
    this.alive = false;
    this.resolve({ code, signal });
  }
}

function plan(index: number): EnginePlan {
  return {
    index,
    label: `engine-${index}`,
    backend: 'vllm',
    workerHost: '127.0.0.1',
    workerPort: 31000 + index,
    url: `ipc:///tmp/smg-zmq/engine-${31000 + index}`,
    handshakePort: 20000 + index,
    argv: ['python3', '-m', 'vllm.entrypoints.cli.main', 'serve', 'm'],
    env: { CUDA_VISIBLE_DEVICES: String(index), PYTHONUNBUFFERED: '1' },
    devices: [String(index)],
  };
}

function harness(onTerm: OnTerm[] = [], opts: Partial<SupervisorOptions> = {}) {
  let nextPid = 100;
  const children: FakeChild[] = [];
  const spawned: Array<{ command: string; args: readonly string[]; opts: SpawnOptions }> = [];
  const kills: Array<[number, NodeJS.Signals]> = [];
  const logs: string[] = [];
  const exits: EngineExitEvent[] = [];
  const restarts: EngineRestartEvent[] = [];
  const sup = new Supervisor({
    spawn: (command, args, o) => {
      spawned.push({ command, args, opts: o });
      const child = new FakeChild(nextPid++, onTerm[children.length] ?? 'exit');
      children.push(child);
      return child;
    },
    killGroup: (pid, signal) => {
      kills.push([pid, signal]);
      const child = children.find((c) => c.pid === pid);
      if (!child || child.onTerm === 'esrch') {
        throw Object.assign(new Error(`kill ESRCH`), { code: 'ESRCH' });
      }
      if (signal === 'SIGKILL' || child.onTerm === 'exit') child.exit(null, signal);
    },
    log: (level, message) => logs.push(`${level}: ${message}`),
    onEngineExit: (e) => exits.push(e),
    onEngineRestart: (e) => restarts.push(e),
    ...opts,
  });
  return { sup, children, spawned, kills, logs, exits, restarts };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('start', () => {
  it('spawns each engine with its argv, env and label, and logs the §2.9 lines', () => {
    const h = harness([], { prefixOutput: true });
    h.sup.start([plan(0), plan(1)]);
    expect(h.spawned.map((s) => s.command)).toEqual(['python3', 'python3']);
    expect(h.spawned[0].args).toEqual(['-m', 'vllm.entrypoints.cli.main', 'serve', 'm']);
    expect(h.spawned[1].opts).toEqual({ env: plan(1).env, label: 'engine-1', prefixOutput: true });
    expect(h.logs).toEqual([
      'info: Launching worker with command: python3 -m vllm.entrypoints.cli.main serve m',
      'info: Launched vllm worker on 127.0.0.1:31000 (pid 100, GPUs: 0)',
      'info: Launching worker with command: python3 -m vllm.entrypoints.cli.main serve m',
      'info: Launched vllm worker on 127.0.0.1:31001 (pid 101, GPUs: 1)',
    ]);
    expect(h.sup.status().map((s) => s.running)).toEqual([true, true]);
  });

  it('reports a spawn that throws as an engine that failed to start', async () => {
    const exits: EngineExitEvent[] = [];
    const sup = new Supervisor({
      spawn: () => {
        throw new Error('spawn python3 ENOENT');
      },
      killGroup: () => {},
      onEngineExit: (e) => exits.push(e),
    });
    sup.start([plan(0)]);
    await vi.advanceTimersByTimeAsync(0);
    expect(exits).toHaveLength(1);
    expect(exits[0].exit.error).toBe('spawn python3 ENOENT');
  });
});

describe('shutdown', () => {
  it('is a no-op without engines (§3.140)', async () => {
    const h = harness();
    await h.sup.shutdown();
    expect(h.kills).toEqual([]);
  });

  it('SIGTERMs every group and resolves once all exit, no SIGKILL', async () => {
    const h = harness(['exit', 'exit']);
    h.sup.start([plan(0), plan(1)]);
    await h.sup.shutdown();
    expect(h.kills).toEqual([
      [100, 'SIGTERM'],
      [101, 'SIGTERM'],
    ]);
    expect(h.exits).toEqual([]); // exits during shutdown are expected, not reported
  });

  it('SIGKILLs the same group after the deadline (§3.139)', async () => {
    const h = harness(['ignore']);
    h.sup.start([plan(0)]);
    let done = false;
    const p = h.sup.shutdown().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(h.kills).toEqual([
      [100, 'SIGTERM'],
      [100, 'SIGKILL'],
    ]);
    expect(h.logs.at(-1)).toContain('engine-0 (pid 100) did not exit in time; sending SIGKILL');
  });

  it('shares one 30 s deadline across engines', async () => {
    const h = harness(['ignore', 'ignore']);
    h.sup.start([plan(0), plan(1)]);
    const p = h.sup.shutdown();
    await vi.advanceTimersByTimeAsync(20_000);
    h.children[0].exit(0);
    await vi.advanceTimersByTimeAsync(10_000);
    await p;
    expect(h.kills).toEqual([
      [100, 'SIGTERM'],
      [101, 'SIGTERM'],
      [101, 'SIGKILL'],
    ]);
  });

  it('tolerates an already-gone group and still waits on the child once (§3.138)', async () => {
    const h = harness(['esrch']);
    h.sup.start([plan(0)]);
    const waited = vi.spyOn(h.children[0].exited, 'then');
    const p = h.sup.shutdown();
    h.children[0].exit(0);
    await expect(p).resolves.toBeUndefined();
    expect(h.kills).toEqual([[100, 'SIGTERM']]);
    expect(waited).toHaveBeenCalledTimes(1);
  });

  it('is idempotent', async () => {
    const h = harness(['exit']);
    h.sup.start([plan(0)]);
    const a = h.sup.shutdown();
    const b = h.sup.shutdown();
    expect(a).toBe(b);
    await a;
    expect(h.kills).toHaveLength(1);
  });

  it('killAll signals only engines still running', () => {
    const h = harness(['ignore', 'ignore']);
    h.sup.start([plan(0), plan(1)]);
    h.children[0].exit(1);
    return vi.advanceTimersByTimeAsync(0).then(() => {
      h.kills.length = 0;
      h.sup.killAll('SIGKILL');
      expect(h.kills).toEqual([[101, 'SIGKILL']]);
    });
  });
});

describe('engines exiting on their own', () => {
  it('are logged and reported at once; not restarted by default', async () => {
    const h = harness(['ignore']);
    h.sup.start([plan(0)]);
    h.children[0].exit(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(h.exits).toEqual([
      {
        index: 0,
        label: 'engine-0',
        url: plan(0).url,
        pid: 100,
        exit: { code: 1, signal: null },
        restartInMs: undefined,
      },
    ]);
    expect(h.logs.at(-1)).toBe(
      'warn: engine-0 (pid 100, ipc:///tmp/smg-zmq/engine-31000) exited with code 1; it will not be restarted (see --restart-engines)',
    );
    // Leftover workers in the dead engine's group are stopped.
    expect(h.kills).toEqual([[100, 'SIGTERM']]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.spawned).toHaveLength(1);
    expect(h.sup.status()[0]).toMatchObject({ running: false, lastExit: { code: 1, signal: null } });
  });

  it('restart with exponential backoff when opted in, and report each restart', async () => {
    const h = harness(['ignore', 'ignore', 'ignore', 'ignore'], { restartEngines: true });
    h.sup.start([plan(0)]);
    const delays: Array<number | undefined> = [];
    for (let k = 0; k < 3; k++) {
      h.children[k].exit(null, 'SIGSEGV');
      await vi.advanceTimersByTimeAsync(0);
      delays.push(h.exits.at(-1)!.restartInMs);
      await vi.advanceTimersByTimeAsync(delays.at(-1)! - 1);
      expect(h.spawned).toHaveLength(k + 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(h.spawned).toHaveLength(k + 2);
    }
    expect(delays).toEqual([1000, 2000, 4000]);
    expect(h.restarts.map((r) => [r.pid, r.attempt])).toEqual([
      [101, 1],
      [102, 2],
      [103, 3],
    ]);
    expect(h.logs).toContain('warn: engine-0 (pid 100, ipc:///tmp/smg-zmq/engine-31000) was killed by SIGSEGV; restarting in 1s (attempt 1)');
    expect(h.sup.status()[0]).toMatchObject({ running: true, restarts: 3, pid: 103 });
  });

  it('caps the backoff and resets it after a long healthy run', async () => {
    const h = harness(Array(10).fill('ignore'), { restartEngines: true, backoff: { initialMs: 1000, maxMs: 3000, resetAfterMs: 60_000 } });
    h.sup.start([plan(0)]);
    const delays: number[] = [];
    for (let k = 0; k < 3; k++) {
      h.children[k].exit(1);
      await vi.advanceTimersByTimeAsync(0);
      delays.push(h.exits.at(-1)!.restartInMs!);
      await vi.advanceTimersByTimeAsync(delays.at(-1)!);
    }
    await vi.advanceTimersByTimeAsync(60_000);
    h.children[3].exit(1);
    await vi.advanceTimersByTimeAsync(0);
    delays.push(h.exits.at(-1)!.restartInMs!);
    expect(delays).toEqual([1000, 2000, 3000, 1000]);
  });

  it('shutdown cancels a pending restart', async () => {
    const h = harness(['ignore'], { restartEngines: true });
    h.sup.start([plan(0)]);
    h.children[0].exit(1);
    await vi.advanceTimersByTimeAsync(0);
    await h.sup.shutdown();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(h.spawned).toHaveLength(1);
    expect(h.restarts).toEqual([]);
  });
});

describe('stopEngine (a live engine whose connection died)', () => {
  it('SIGTERMs its group; its exit takes the normal path, so the restart comes after the old process is gone', async () => {
    const h = harness(['exit', 'ignore'], { restartEngines: true });
    h.sup.start([plan(0)]);
    expect(h.sup.runningPid(plan(0).url)).toBe(100);
    expect(await h.sup.stopEngine(plan(0).url)).toBe(true);
    expect(h.kills[0]).toEqual([100, 'SIGTERM']);
    expect(h.sup.runningPid(plan(0).url)).toBeUndefined();
    expect(h.exits).toHaveLength(1);
    expect(h.spawned).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(h.exits[0].restartInMs!);
    expect(h.spawned).toHaveLength(2);
    expect(h.sup.runningPid(plan(0).url)).toBe(101);
  });

  it('SIGKILLs after the grace when SIGTERM is ignored', async () => {
    const h = harness(['ignore'], { stopGraceMs: 5000 });
    h.sup.start([plan(0)]);
    let done = false;
    const p = h.sup.stopEngine(plan(0).url).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(4999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(h.kills).toEqual([
      [100, 'SIGTERM'],
      [100, 'SIGKILL'],
      // The exit handler's own group SIGTERM for leftover workers.
      [100, 'SIGTERM'],
    ]);
    expect(h.logs).toContain('warn: engine-0 (pid 100) did not exit in time; sending SIGKILL to its process group');
  });

  it('is refused for an engine that is not running, an unknown URL, or during shutdown', async () => {
    const h = harness(['exit']);
    h.sup.start([plan(0)]);
    expect(await h.sup.stopEngine('ipc:///nowhere')).toBe(false);
    const shutdown = h.sup.shutdown();
    expect(await h.sup.stopEngine(plan(0).url)).toBe(false);
    await shutdown;
  });
});

describe('onSpawn', () => {
  it('sees every started process, first start and restarts, before the Launched line', async () => {
    const seen: string[] = [];
    const h = harness(['ignore', 'ignore'], {
      restartEngines: true,
      onSpawn: (p, child) => seen.push(`${p.label}:${child.pid}`),
      log: (level, m) => seen.push(`${level}: ${m.slice(0, 16)}`),
    });
    h.sup.start([plan(0)]);
    h.children[0].exit(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(seen.filter((s) => s.startsWith('engine-0:') || s.startsWith('info: Launched'))).toEqual([
      'engine-0:100',
      'info: Launched vllm wo',
      'engine-0:101',
      'info: Launched vllm wo',
    ]);
  });
});
