/**
 * Engine supervision policy (spec cli-and-api §2.11), free of real processes: spawning and
 * group-killing are injected. Each engine leads its own process group, so a terminal Ctrl-C reaches
 * only the launcher and engines are stopped here, group-wide, covering their own worker processes.
 *
 * Beyond SMG (which never looks at engines after start-up): an engine exiting on its own is logged
 * and reported at once (the gateway can mark its worker down), and `restartEngines` (opt-in,
 * default off like SMG) restarts it with exponential backoff.
 */
import type { EnginePlan } from './engine-plan.js';
import { launchedLine, launchingLine } from './engine-plan.js';
import { describeExit, type ChildHandle, type ExitInfo, type KillGroupFn, type LogFn, type SpawnFn } from './engine-process.js';
import { backoffDelay, DEFAULT_BACKOFF, nextAttempt, type BackoffPolicy } from './restart-backoff.js';

/** One shared deadline for all engines to stop after SIGTERM before SIGKILL (§2.11). */
export const SHUTDOWN_DEADLINE_MS = 30_000;

export interface EngineExitEvent {
  readonly index: number;
  readonly label: string;
  readonly url: string;
  readonly pid: number | undefined;
  readonly exit: ExitInfo;
  /** Delay before the restart, or undefined when the engine stays down. */
  readonly restartInMs: number | undefined;
}

export interface EngineRestartEvent {
  readonly index: number;
  readonly label: string;
  readonly url: string;
  readonly pid: number | undefined;
  readonly attempt: number;
}

export interface SupervisorOptions {
  readonly spawn: SpawnFn;
  readonly killGroup: KillGroupFn;
  readonly log?: LogFn;
  readonly prefixOutput?: boolean;
  readonly restartEngines?: boolean;
  readonly backoff?: Partial<BackoffPolicy>;
  readonly shutdownDeadlineMs?: number;
  /** An engine exited while we were not shutting down. */
  readonly onEngineExit?: (event: EngineExitEvent) => void;
  /** A crashed engine was spawned again. */
  readonly onEngineRestart?: (event: EngineRestartEvent) => void;
  /** Every engine process that started (first start and restarts), before anything else runs. */
  readonly onSpawn?: (plan: EnginePlan, child: ChildHandle) => void;
  /** SIGTERM → SIGKILL grace of stopEngine (a live engine whose connection died). */
  readonly stopGraceMs?: number;
  readonly now?: () => number;
}

/** stopEngine's default grace: enough for vLLM to release its GPUs on SIGTERM. */
export const STOP_ENGINE_GRACE_MS = 10_000;

export interface EngineStatus {
  readonly index: number;
  readonly pid: number | undefined;
  readonly running: boolean;
  readonly lastExit: ExitInfo | undefined;
  readonly restarts: number;
}

interface Slot {
  readonly plan: EnginePlan;
  child: ChildHandle | undefined;
  running: boolean;
  startedAt: number;
  attempts: number;
  restarts: number;
  lastExit: ExitInfo | undefined;
  restartTimer: ReturnType<typeof setTimeout> | undefined;
}

export class Supervisor {
  private readonly slots: Slot[] = [];
  private readonly log: LogFn;
  private readonly backoff: BackoffPolicy;
  private readonly now: () => number;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: SupervisorOptions) {
    this.log = opts.log ?? (() => {});
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.now = opts.now ?? Date.now;
  }

  /** Spawn every planned engine, in order. Returns at once; exits are observed through events. */
  start(plans: readonly EnginePlan[]): void {
    for (const plan of plans) {
      const slot: Slot = {
        plan,
        child: undefined,
        running: false,
        startedAt: 0,
        attempts: 0,
        restarts: 0,
        lastExit: undefined,
        restartTimer: undefined,
      };
      this.slots.push(slot);
      this.spawnSlot(slot);
    }
  }

  get shuttingDown(): boolean {
    return this.stopping !== undefined;
  }

  status(): EngineStatus[] {
    return this.slots.map((s) => ({
      index: s.plan.index,
      pid: s.child?.pid,
      running: s.running,
      lastExit: s.lastExit,
      restarts: s.restarts,
    }));
  }

  /**
   * SIGTERM every engine group, then wait in launch order against one shared deadline; a group
   * whose leader is still alive when its turn's time runs out gets SIGKILL. Idempotent.
   */
  shutdown(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  /** The engine process currently serving `url`, if it runs. */
  runningPid(url: string): number | undefined {
    const slot = this.slots.find((s) => s.plan.url === url);
    return slot?.running ? slot.child?.pid : undefined;
  }

  /** The last stderr lines of replica `index`'s latest process (empty when not captured). */
  async stderrTail(index: number): Promise<readonly string[]> {
    const child = this.slots.find((s) => s.plan.index === index)?.child;
    return (await child?.stderrTail?.()) ?? [];
  }

  /**
   * Stop the engine behind `url` although it did not exit: it runs, but its worker's connection
   * died (input thread gone or hung). SIGTERM to its group, SIGKILL after the grace; resolves
   * once the process has exited. Its exit then takes the normal path — logged, reported, and
   * restarted with backoff under `restartEngines` — so the restart always comes after the old
   * process is gone (it holds the engine identity the new one would register with).
   * False when that engine is not running (or a shutdown owns the engines).
   */
  async stopEngine(url: string): Promise<boolean> {
    const slot = this.slots.find((s) => s.plan.url === url);
    const child = slot?.child;
    if (!slot || !slot.running || child?.pid === undefined || this.shuttingDown) return false;
    const pid = child.pid;
    this.signalGroup(slot, pid, 'SIGTERM');
    if (!(await settlesWithin(child.exited, this.opts.stopGraceMs ?? STOP_ENGINE_GRACE_MS))) {
      this.log('warn', `${slot.plan.label} (pid ${pid}) did not exit in time; sending SIGKILL to its process group`);
      this.signalGroup(slot, pid, 'SIGKILL');
      await child.exited;
    }
    return true;
  }

  /** Immediate group signal to engines still running (second Ctrl-C, process exit). */
  killAll(signal: NodeJS.Signals): void {
    for (const slot of this.slots) {
      const pid = slot.child?.pid;
      if (slot.running && pid !== undefined) this.signalGroup(slot, pid, signal);
    }
  }

  private async stopAll(): Promise<void> {
    for (const slot of this.slots) {
      if (slot.restartTimer !== undefined) clearTimeout(slot.restartTimer);
      slot.restartTimer = undefined;
    }
    const started = this.slots.filter((s) => s.child?.pid !== undefined);
    if (started.length === 0) return;

    // Even an engine whose leader already exited may have left workers in its group.
    for (const slot of started) this.signalGroup(slot, slot.child!.pid!, 'SIGTERM');

    const deadline = this.now() + (this.opts.shutdownDeadlineMs ?? SHUTDOWN_DEADLINE_MS);
    for (const slot of started) {
      const child = slot.child!;
      const exitedInTime = await settlesWithin(child.exited, Math.max(0, deadline - this.now()));
      if (!exitedInTime) {
        this.log('warn', `${slot.plan.label} (pid ${child.pid}) did not exit in time; sending SIGKILL to its process group`);
        this.signalGroup(slot, child.pid!, 'SIGKILL');
      }
    }
  }

  private signalGroup(slot: Slot, pid: number, signal: NodeJS.Signals): void {
    try {
      this.opts.killGroup(pid, signal);
    } catch (err) {
      this.log('warn', `Could not send ${signal} to ${slot.plan.label} (pid ${pid}): ${(err as Error).message}`);
    }
  }

  private spawnSlot(slot: Slot): void {
    const { plan } = slot;
    this.log('info', launchingLine(plan));
    let child: ChildHandle;
    try {
      child = this.opts.spawn(plan.argv[0], plan.argv.slice(1), {
        env: plan.env,
        label: plan.label,
        prefixOutput: this.opts.prefixOutput ?? false,
      });
    } catch (err) {
      child = { pid: undefined, exited: Promise.resolve({ code: null, signal: null, error: (err as Error).message }) };
    }
    slot.child = child;
    slot.running = true;
    slot.startedAt = this.now();
    if (child.pid !== undefined) {
      try {
        this.opts.onSpawn?.(plan, child);
      } catch (err) {
        this.log('warn', `${plan.label} (pid ${child.pid}): ${(err as Error).message}`);
      }
      this.log('info', launchedLine(plan, child.pid));
    }
    void child.exited.then((info) => this.onExit(slot, child, info));
  }

  private onExit(slot: Slot, child: ChildHandle, info: ExitInfo): void {
    if (slot.child !== child) return;
    slot.running = false;
    slot.lastExit = info;
    if (this.shuttingDown) return;

    const { plan } = slot;
    const who = `${plan.label} (pid ${child.pid ?? '?'}, ${plan.url})`;
    // The leader is gone but its workers may still hold GPUs; stop them before any restart.
    if (child.pid !== undefined) this.signalGroup(slot, child.pid, 'SIGTERM');

    let restartInMs: number | undefined;
    if (this.opts.restartEngines) {
      slot.attempts = nextAttempt(slot.attempts, this.now() - slot.startedAt, this.backoff);
      restartInMs = backoffDelay(slot.attempts, this.backoff);
      this.log('warn', `${who} ${describeExit(info)}; restarting in ${formatDelay(restartInMs)} (attempt ${slot.attempts})`);
      slot.restartTimer = setTimeout(() => this.restart(slot), restartInMs);
    } else {
      this.log('warn', `${who} ${describeExit(info)}; it will not be restarted (see --restart-engines)`);
    }
    this.opts.onEngineExit?.({ index: plan.index, label: plan.label, url: plan.url, pid: child.pid, exit: info, restartInMs });
  }

  private restart(slot: Slot): void {
    slot.restartTimer = undefined;
    if (this.shuttingDown) return;
    slot.restarts += 1;
    this.spawnSlot(slot);
    const { plan } = slot;
    this.log('info', `Restarted ${plan.label} (pid ${slot.child?.pid ?? '?'}, attempt ${slot.attempts})`);
    this.opts.onEngineRestart?.({ index: plan.index, label: plan.label, url: plan.url, pid: slot.child?.pid, attempt: slot.attempts });
  }
}

function formatDelay(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

/** True if `p` settles within `ms`; the timer is always cleared so nothing lingers. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
