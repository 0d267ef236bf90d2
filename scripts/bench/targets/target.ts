/**
 * What the phase runner needs from a target (gateway, http-ceiling, direct): a request function
 * per workload kind, the processes whose CPU to read (the one named `server` is the process that
 * serves: the gateway, the ceiling server, or this bench for the in-process engine client), an
 * event-loop probe of that process, and a liveness check between phases.
 */
import type { Target } from '../args.js';
import type { HttpTarget } from '../http-client.js';
import type { LoopProbe } from '../loop-stats.js';
import type { CpuProbe, RequestFn } from '../phase.js';
import type { Kind } from '../workloads.js';

export interface TargetHandle {
  target: Target;
  /** Null when the target cannot serve the kind (direct has no templating: no long prompts). */
  fn(kind: Kind): RequestFn | null;
  /** HTTP targets: where a kind's requests go, for phases that bring their own client agent. */
  httpTarget?(kind: Kind): HttpTarget;
  /** The gateway's http://host:port (the /generate phase sends its own requests). */
  baseUrl?: string;
  cpu: CpuProbe[];
  /** The serving process, for RSS. */
  serverPid: number | 'self';
  loop: LoopProbe;
  alive(): Promise<void>;
  /** Called once, after the JIT warm-up and before the first measured phase. */
  onMeasureStart?(): Promise<void>;
  close(): Promise<void>;
}

/** CPU probe names used in the tables. */
export const SERVER = 'server';
export const ENGINE = 'engine';
export const CLIENT = 'client';
export const MACHINE = 'machine';
