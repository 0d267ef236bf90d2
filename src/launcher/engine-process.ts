/**
 * The seam between supervision policy and real processes. The Supervisor sees only these
 * shapes, so tests drive it with fake children; spawn-engine.ts is the execa implementation.
 */

export interface ExitInfo {
  /** Exit status, or null when killed by a signal or never started. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (e.g. ENOENT for a missing python). */
  readonly error?: string;
}

export interface ChildHandle {
  /** Also the process-group id: each engine leads its own group. Undefined if spawning failed. */
  readonly pid: number | undefined;
  /** Settles when the direct child exits (not when its pipes close; see ecosystem §1.4). */
  readonly exited: Promise<ExitInfo>;
  /**
   * The engine's last stderr lines. After an exit it first waits (briefly) for the rest of the
   * output to arrive. Absent when the output is not captured (test doubles).
   */
  stderrTail?(): Promise<readonly string[]>;
}

export interface SpawnOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `engine-<index>`, used as the `[engine-N]` line prefix when prefixing is on. */
  readonly label: string;
  readonly prefixOutput: boolean;
}

export type SpawnFn = (command: string, args: readonly string[], opts: SpawnOptions) => ChildHandle;

/** Signal a whole process group; must tolerate a group that no longer exists. */
export type KillGroupFn = (pgid: number, signal: NodeJS.Signals) => void;

export type LogFn = (level: 'info' | 'warn' | 'error', message: string) => void;

/** `exited with code 1` / `was killed by SIGKILL` / `failed to start: …` */
export function describeExit(info: ExitInfo): string {
  if (info.error !== undefined) return `failed to start: ${info.error}`;
  if (info.signal !== null) return `was killed by ${info.signal}`;
  return `exited with code ${info.code}`;
}
