// Signal and shutdown policy (spec cli-and-api §2.11).
// Covers §3 behaviours: 141 (a signal sets the shutting-down flag and exits 128+SIGINT = 130; 143
// for SIGTERM), 142 (a re-entrant signal does not run the shutdown again — clone divergence allowed
// by the spec: it force-kills the engines and exits at once instead of being ignored). Also the order
// gateway drain → engines → exit, and the real signal wiring installing/removing its handlers.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { REPEAT_SIGNAL_WINDOW_MS, ShutdownController, signalExitCode, type EngineStopper } from '../../src/launcher/shutdown-controller.js';
import { exitWithParentWanted, installSignalHandlers, PARENT_POLL_MS, SHUTDOWN_SIGNALS } from '../../src/launcher/signals.js';

function harness(clock: { now: number } = { now: 0 }) {
  const events: string[] = [];
  let releaseDrain!: () => void;
  const engines: EngineStopper = {
    shutdown: async () => {
      events.push('engines:shutdown');
    },
    killAll: (signal) => events.push(`engines:killAll:${signal}`),
  };
  const controller = new ShutdownController({
    engines,
    drainGateway: () =>
      new Promise<void>((r) => {
        events.push('gateway:drain');
        releaseDrain = () => r();
      }),
    exit: (code) => events.push(`exit:${code}`),
    log: (level, msg) => events.push(`${level}:${msg}`),
    now: () => clock.now,
  });
  return { controller, events, release: () => releaseDrain(), clock };
}

describe('ShutdownController', () => {
  it('maps signals to 128 + signo', () => {
    expect(signalExitCode('SIGINT')).toBe(130);
    expect(signalExitCode('SIGTERM')).toBe(143);
    expect(signalExitCode('SIGHUP')).toBe(129);
  });

  it('drains the gateway, then stops engines, then exits 130 on SIGINT (§3.141)', async () => {
    const h = harness();
    const done = h.controller.onSignal('SIGINT');
    expect(h.controller.shuttingDown).toBe(true);
    h.release();
    await done;
    expect(h.events).toEqual(['info:Received signal 2, shutting down workers…', 'gateway:drain', 'engines:shutdown', 'exit:130']);
  });

  it('a second signal during the drain force-kills engines and exits at once (§3.142, divergence)', async () => {
    const h = harness();
    void h.controller.onSignal('SIGTERM');
    await h.controller.onSignal('SIGINT');
    expect(h.events).toEqual([
      'info:Received signal 15, shutting down workers…',
      'gateway:drain',
      'warn:Received signal 2 again, killing workers now',
      'engines:killAll:SIGKILL',
      'exit:130',
    ]);
  });

  it('the same signal again within 1 s is one request (timeout signals process and group): the drain runs on', async () => {
    const h = harness();
    const first = h.controller.onSignal('SIGTERM');
    h.clock.now = REPEAT_SIGNAL_WINDOW_MS - 1;
    await h.controller.onSignal('SIGTERM');
    h.release();
    await first;
    expect(h.events).toEqual([
      'info:Received signal 15, shutting down workers…',
      'gateway:drain',
      'info:Received signal 15 again within 1s; counting it as the same request (send it again later to stop at once)',
      'engines:shutdown',
      'exit:143',
    ]);
  });

  it('the same signal after the window is a second request: engines are killed at once', async () => {
    const h = harness();
    void h.controller.onSignal('SIGINT');
    h.clock.now = REPEAT_SIGNAL_WINDOW_MS;
    await h.controller.onSignal('SIGINT');
    expect(h.events.slice(2)).toEqual(['warn:Received signal 2 again, killing workers now', 'engines:killAll:SIGKILL', 'exit:130']);
  });

  it('finish(code, { drain: false }) skips the drain for the abort hook (start-up failed)', async () => {
    const events: string[] = [];
    const c = new ShutdownController({ engines: { shutdown: async () => void events.push('engines'), killAll: () => {} }, exit: (code) => events.push(`exit:${code}`) });
    c.setDrainGateway(
      async () => void events.push('drain'),
      async () => void events.push('abort'),
    );
    await c.finish(1, { drain: false });
    expect(events).toEqual(['abort', 'engines', 'exit:1']);
  });

  it('finish() runs the same shutdown with the given code, and is a no-op once a signal owns it', async () => {
    const h = harness();
    const f = h.controller.finish(0);
    h.release();
    await f;
    expect(h.events).toEqual(['gateway:drain', 'engines:shutdown', 'exit:0']);
    await h.controller.finish(1);
    expect(h.events).toHaveLength(3);
  });

  it('a failing drain is logged and engines are still stopped', async () => {
    const events: string[] = [];
    const c = new ShutdownController({
      engines: { shutdown: async () => void events.push('engines'), killAll: () => {} },
      drainGateway: async () => {
        throw new Error('boom');
      },
      exit: (code) => events.push(`exit:${code}`),
      log: (level, msg) => events.push(`${level}:${msg}`),
    });
    await c.onSignal('SIGTERM');
    expect(events.slice(1)).toEqual(['error:Gateway drain failed: boom', 'engines', 'exit:143']);
  });

  it('a drain hook set later is used', async () => {
    const events: string[] = [];
    const c = new ShutdownController({ engines: { shutdown: async () => {}, killAll: () => {} }, exit: () => {} });
    c.setDrainGateway(async () => void events.push('drained'));
    await c.finish(0);
    expect(events).toEqual(['drained']);
  });
});

describe('installSignalHandlers', () => {
  it('routes SIGINT/SIGTERM/SIGHUP to the controller and the exit hook, then uninstalls', async () => {
    const emitter = new EventEmitter();
    const proc = emitter as unknown as NodeJS.Process;
    const seen: string[] = [];
    const controller = { onSignal: async (s: NodeJS.Signals) => void seen.push(s) } as unknown as ShutdownController;
    const uninstall = installSignalHandlers({ controller, proc, killOnExit: () => seen.push('exit') });
    for (const s of SHUTDOWN_SIGNALS) emitter.emit(s);
    emitter.emit('exit');
    expect(seen).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP', 'exit']);
    uninstall();
    expect(emitter.listenerCount('SIGINT')).toBe(0);
    expect(emitter.listenerCount('exit')).toBe(0);
  });
});

describe('exit with the parent (npx wrappers)', () => {
  it('is wanted under npm, yarn or pnpm (npm_execpath) unless SMG_EXIT_WITH_PARENT says otherwise', () => {
    expect(exitWithParentWanted({})).toBe(false);
    expect(exitWithParentWanted({ npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js' })).toBe(true);
    expect(exitWithParentWanted({ npm_execpath: 'x', SMG_EXIT_WITH_PARENT: '0' })).toBe(false);
    expect(exitWithParentWanted({ SMG_EXIT_WITH_PARENT: '1' })).toBe(true);
  });

  it('a changed parent pid shuts down as on SIGTERM, once; not when a shutdown already runs', async () => {
    vi.useFakeTimers();
    try {
      let ppid = 100;
      const seen: string[] = [];
      let shuttingDown = false;
      const controller = {
        get shuttingDown() {
          return shuttingDown;
        },
        onSignal: async (s: NodeJS.Signals) => void seen.push(s),
      };
      const proc = new EventEmitter() as unknown as NodeJS.Process;
      const uninstall = installSignalHandlers({ controller, proc, exitWithParent: true, ppid: () => ppid, log: (l, m) => seen.push(`${l}:${m}`) });
      await vi.advanceTimersByTimeAsync(PARENT_POLL_MS * 3);
      expect(seen).toEqual([]);
      ppid = 1;
      await vi.advanceTimersByTimeAsync(PARENT_POLL_MS * 3);
      expect(seen).toEqual(['warn:Parent process (pid 100) exited; shutting down as on SIGTERM', 'SIGTERM']);
      uninstall();

      // A Ctrl-C reached both npm and smg: smg is already draining, the parent's death adds nothing.
      seen.length = 0;
      ppid = 200;
      shuttingDown = true;
      const again = installSignalHandlers({ controller, proc, exitWithParent: true, ppid: () => ppid });
      ppid = 1;
      await vi.advanceTimersByTimeAsync(PARENT_POLL_MS * 3);
      expect(seen).toEqual([]);
      again();
    } finally {
      vi.useRealTimers();
    }
  });
});
