/**
 * Child processes of the bench (gateway, mock engines): spawn with captured logs, stop with
 * SIGTERM → SIGKILL, and a process-wide registry so every child dies on error, Ctrl-C or exit.
 * Also: free ports, /proc CPU accounting and the readiness wait.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SMG_BIN = fileURLToPath(new URL('../../bin/smg.js', import.meta.url));

const TAIL_LINES = 200;

export class Child {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly tail: string[] = [];
  /** Each output line goes to these first; a listener returning true consumes it. */
  private readonly lineListeners: ((line: string) => boolean)[] = [];

  constructor(
    readonly name: string,
    args: string[],
    /** `script`: the entry file run by node (default bin/smg.js). */
    opts: { nodeFlags?: string[]; verbose?: boolean; script?: string; env?: Record<string, string> } = {},
  ) {
    this.child = spawn(process.execPath, [...(opts.nodeFlags ?? []), opts.script ?? SMG_BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', ...opts.env },
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        partial += chunk;
        const lines = partial.split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (this.lineListeners.some((l) => l(line))) continue;
          this.tail.push(line);
          if (this.tail.length > TAIL_LINES) this.tail.shift();
          if (opts.verbose) process.stderr.write(`[${this.name}] ${line}\n`);
        }
      });
    }
    // 'close' comes after 'exit' once stdout/stderr are drained, so the log tail is complete.
    this.exited = new Promise((resolve) => this.child.once('close', (code, signal) => resolve({ code, signal })));
    // A spawn failure (ENOENT…) arrives as 'error'; 'exit' may never follow.
    this.child.once('error', (err) => {
      this.tail.push(`spawn error: ${err.message}`);
    });
    registry.add(this);
    void this.exited.then(() => registry.delete(this));
  }

  onLine(listener: (line: string) => boolean): void {
    this.lineListeners.push(listener);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name}: process has no pid (spawn failed?)`);
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  logTail(n = 40): string {
    return this.tail.length > 0 ? this.tail.slice(-n).join('\n') : '(no output)';
  }

  /** deathNote() once the process's output is drained (bounded wait). */
  async deathNoteAfterExit(): Promise<string> {
    await Promise.race([this.exited, sleep(2000)]);
    return this.deathNote();
  }

  /** `<name> exited (code 1)` / `(signal SIGKILL)` plus the end of its log. */
  deathNote(): string {
    const how = this.child.signalCode ? `signal ${this.child.signalCode}` : `code ${this.child.exitCode}`;
    return `${this.name} (pid ${this.child.pid}) exited (${how}); last output:\n${this.logTail()}`;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (this.running) this.child.kill('SIGKILL');
    }, graceMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Synchronous last resort (process 'exit' handler). */
  killNow(): void {
    if (this.running) this.child.kill('SIGKILL');
  }
}

const registry = new Set<Child>();

/** Aborted on SIGINT/SIGTERM: phases stop issuing requests and no new phase starts. */
export const interrupted = new AbortController();

export async function stopAll(graceMs = 5000): Promise<void> {
  await Promise.all([...registry].map((c) => c.stop(graceMs)));
}

/**
 * On SIGINT/SIGTERM: run `cleanup` (bounded) and exit 130/143. A second signal (> 1 s later)
 * kills the children at once.
 * On process exit, any child still registered gets SIGKILL.
 */
export function installSignalHandlers(cleanup: () => Promise<void>): void {
  let stoppingSince = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    const code = sig === 'SIGINT' ? 130 : 143;
    if (stoppingSince > 0) {
      // Ctrl-C reaches us twice (from the terminal and relayed by the tsx wrapper): only a
      // signal well after the first one means "stop waiting".
      if (Date.now() - stoppingSince < 1000) return;
      for (const c of registry) c.killNow();
      process.exit(code);
    }
    stoppingSince = Date.now();
    interrupted.abort(new Error(`interrupted by ${sig}`));
    process.stderr.write(`\nbench: ${sig}, stopping children…\n`);
    const hard = setTimeout(() => {
      for (const c of registry) c.killNow();
      process.exit(code);
    }, 15_000);
    hard.unref();
    cleanup().finally(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', () => {
    for (const c of registry) c.killNow();
  });
}

/** A TCP port that was free a moment ago. */
export { freeTcpPort as freePort } from '../../src/mock-engine/spawn.js';

/** Whether 127.0.0.1:port can be bound right now. */
export { isPortAvailable as portIsFree } from '../../src/launcher/ports.js';

let clockTicks: number | null = null;
function ticksPerSecond(): number {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** user+system CPU seconds of a whole process (all threads) from /proc/<pid>/stat. */
export function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // comm (field 2) may contain spaces and parentheses: split after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime is field 14, stime field 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  return (utime + stime) / ticksPerSecond();
}

/**
 * CPU seconds of a process's live threads, from /proc/<pid>/task/<tid>/schedstat (ns on a CPU):
 * precise where /proc/<pid>/stat counts 10 ms ticks, for phases that burn only tens of ms. A
 * thread that exits in between takes its time with it, so use it over spans where none does.
 */
export function procCpuSecondsPrecise(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
      ns += Number(text.slice(0, text.indexOf(' ')));
    } catch {
      // the thread exited between the listing and the read
    }
  }
  return ns / 1e9;
}

/** Resident set size in bytes of a process (VmRSS in /proc/<pid>/status), or of this process. */
export function rssBytes(pid: number | 'self'): number {
  if (pid === 'self') return process.memoryUsage.rss();
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Busy CPU seconds of the whole machine (all cores, every process) from /proc/stat. */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user/nice)
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return (total - f[3] - f[4]) / ticksPerSecond();
}

/** CPU seconds of this (bench) process. */
export function selfCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls GET <base>/readiness until 200; fails early if `child` exits. */
export async function waitReady(base: string, child: Child, timeoutMs: number, others: Child[] = []): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    for (const c of [child, ...others]) {
      if (!c.running) throw new Error(`before the gateway became ready, ${await c.deathNoteAfterExit()}`);
    }
    try {
      const res = await fetch(`${base}/readiness`, { signal: AbortSignal.timeout(2000) });
      const body = await res.text();
      if (res.status === 200) return;
      last = `${res.status} ${body}`;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > end) {
      throw new Error(`gateway not ready after ${timeoutMs} ms (last: ${last})\n--- gateway log ---\n${child.logTail()}`);
    }
    await sleep(100);
  }
}
