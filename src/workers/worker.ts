/**
 * One registered ZMQ worker: identity, status, and the slot for its engine client.
 *
 * The connection is filled by a one-shot background "driver" (bind + N-engine handshake). Nothing on
 * a request path ever waits for it: a probe or a request only kicks it. When the client latches
 * dead the registry evicts it and starts a new driver at once (`rebindAfterDeath`), so the sockets
 * and the handshake listener are back before a restarted engine dials in; a client that went dead
 * without saying so is still evicted by the next probe (SMG's only path).
 */
import type { EngineClientApi, EngineError, RankState } from '../engine/client-types.js';
import { IpcPathError } from '../engine/ipc-path.js';
import type { RuntimeType } from '../engine/types.js';
import type { Logger } from '../util/logger.js';
import type { ConnectEngineFn } from './connect.js';
import { freshCounters, type ProbeCounters } from './state-machine.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import type { ResolvedHealth, WorkerSpec, WorkerStatus } from './types.js';

export interface WorkerIdentity {
  id: string;
  url: string;
  /**
   * `zmq`: an engine group behind ipc:// sockets, served through the pipeline. `http`: an
   * OpenAI-compatible upstream (another smg, vllm serve, SGLang), served by src/forward/.
   */
  transport: 'zmq' | 'http';
  /** The ZMQ dialect; an HTTP worker never uses it (its runtime is the spec's, shown as given). */
  runtime: RuntimeType;
  engineCount: number;
  /** `zmq_handshake_address` when set; otherwise the engine client derives the address. */
  handshakeOverride: string | null;
  /** The address the driver binds (override or derived), for logs and collision checks. */
  handshakeAddress: string;
  /** The canonical model id (first served name), reported by /v1/models and responses. */
  modelId: string;
  /** Every name a request's `model` may use for this worker, canonical first. */
  modelNames: readonly string[];
  tokenizerSource: string | null;
  spec: WorkerSpec;
  health: ResolvedHealth;
}

export interface WorkerEvents {
  /** The handshake completed under `revision`; stale revisions must be ignored by the listener. */
  onConnected(worker: Worker, revision: number): void;
  /** The live client latched dead (engine died, socket failed, silence…). */
  onDead(worker: Worker, err: EngineError): void;
  /** A handshake attempt failed (`socket_refused` or `handshake_failed`), for the error counter. */
  onError?(worker: Worker, errorType: string): void;
}

/** The last thing that went wrong with a worker, for GET /workers and /readiness. */
export interface WorkerError {
  message: string;
  /** Unix milliseconds. */
  at: number;
}

/** A WorkerError as the API shows it (ISO time). */
export function errorView(e: WorkerError | null): { message: string; at: string } | null {
  return e === null ? null : { message: e.message, at: new Date(e.at).toISOString() };
}

export interface WorkerDeps {
  connect: ConnectEngineFn;
  logger: Logger;
  stageTimeoutMs: number;
  silenceTimeoutMs: number;
  events: WorkerEvents;
}

export type ProbeOutcome = 'alive' | 'evicted' | 'connecting';

/** A request reached a worker whose handshake has not completed (SMG: 500 get_backend_client_failed). */
export class HandshakePendingError extends Error {
  override name = 'HandshakePendingError';
}

interface Driver {
  abort: AbortController;
  done: Promise<void>;
}

/** How long removal waits for an aborted driver to release its binds before moving on. */
const DRIVER_ABORT_WAIT_MS = 5000;

export class Worker {
  status: WorkerStatus = 'pending';
  counters: ProbeCounters = freshCounters();
  /** Bumped whenever the transport is reset, so a late handshake of the old setup is ignored. */
  revision = 0;
  private client: EngineClientApi | null = null;
  private driver: Driver | null = null;
  /** Closing an evicted client must finish before a new driver rebinds the same addresses. */
  private releasing: Promise<void> = Promise.resolve();
  private closed = false;
  private activeRequests = 0;
  /** Unix ms of registration: `created` of the model on /v1/models. */
  readonly registeredAt = Date.now();
  /** Since when the worker is `pending` (registration, or a PUT that reset its transport). */
  pendingSince = this.registeredAt;
  /** When the current driver started, and when its sockets were bound (null until then). */
  private driverStartedAt: number | null = null;
  private boundAt: number | null = null;
  /** A socket-path check refused the binds; holds until a later attempt gets past the checks. */
  private socketRefusal: string | null = null;
  /** The last handshake failure or engine death; kept after recovery for GET /workers. */
  lastError: WorkerError | null = null;
  /** Set by the registry while the worker's model has no tokenizer because its load failed. */
  tokenizerFailure: string | null = null;
  /** HTTP workers: the breaker that takes the worker out of selection (null when disabled or ZMQ). */
  breaker: CircuitBreaker | null = null;
  /** HTTP workers: the model cards the upstream's /v1/models reported at the last discovery. */
  upstreamModels: ReadonlyArray<Record<string, unknown>> | null = null;

  constructor(
    public identity: WorkerIdentity,
    private readonly deps: WorkerDeps,
  ) {}

  get id(): string {
    return this.identity.id;
  }
  get url(): string {
    return this.identity.url;
  }
  get modelId(): string {
    return this.identity.modelId;
  }
  get runtime(): RuntimeType {
    return this.identity.runtime;
  }
  get isReady(): boolean {
    return this.status === 'ready';
  }
  get isHttp(): boolean {
    return this.identity.transport === 'http';
  }
  get hasLiveClient(): boolean {
    return this.client !== null && this.client.alive;
  }
  /** Requests the gateway has in flight on this worker (the `load` of GET /workers). */
  get load(): number {
    return this.activeRequests;
  }

  ranks(): RankState[] {
    return this.client ? this.client.ranks() : [];
  }

  /** The smallest max_model_len the engines reported at handshake; null before one completed. */
  get maxModelLen(): number | null {
    return this.client ? this.client.maxModelLen : null;
  }

  /**
   * Why this worker does not serve requests, in words an operator can act on; null when it does.
   * A ready worker whose model has no tokenizer (the load failed) is not serving either.
   */
  notReadyReason(): string | null {
    if (this.status === 'ready') return this.tokenizerFailure === null ? null : `tokenizer failed: ${this.tokenizerFailure}`;
    if (this.status === 'draining') return 'draining: the worker is being removed';
    if (this.isHttp) {
      if (this.lastError !== null) return `${this.status === 'failed' ? 'failed' : 'not connected'}: ${this.lastError.message}`;
      return this.status === 'failed' ? 'failed: no healthy probe before the limit' : 'waiting for the first health probe';
    }
    if (this.socketRefusal !== null) {
      const what = this.socketRefusal.startsWith('ipc socket path') ? 'socket path' : 'socket directory';
      return `${what} refused: ${this.socketRefusal}`;
    }
    // A failed worker may still have a handshake listening (a late engine promotes it), but
    // what the operator needs first is why it failed.
    if (this.status === 'failed' && this.lastError !== null) return `failed: ${this.lastError.message}`;
    if (this.driver !== null) {
      const since = this.boundAt ?? this.driverStartedAt ?? Date.now();
      return `waiting for handshake on ${this.identity.handshakeAddress} since ${new Date(since).toISOString()}`;
    }
    if (this.lastError !== null) {
      const prefix = this.status === 'failed' ? 'failed' : 'not connected';
      return `${prefix}: ${this.lastError.message}`;
    }
    return this.status === 'failed' ? 'failed: no handshake before the probe limit' : 'waiting for the first health probe';
  }

  /**
   * Load as policies compare it: per rank the larger of our in-flight count and the engine's
   * reported running+waiting, summed; never below the gateway's own request count.
   */
  loadScore(): number {
    let sum = 0;
    for (const r of this.ranks()) {
      const reported = r.load ? r.load.numRunning + r.load.numWaiting : 0;
      sum += Math.max(r.inFlight, reported);
    }
    return Math.max(sum, this.activeRequests);
  }

  /** Counts one gateway request against this worker; the returned release is idempotent. */
  trackRequest(): () => void {
    this.activeRequests += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.activeRequests -= 1;
    };
  }

  /**
   * The live client for a request. Never waits for a handshake: with no client it starts the
   * driver and throws, so the caller fails fast.
   */
  acquireClient(): EngineClientApi {
    const c = this.client;
    if (c && c.alive) return c;
    if (!c) this.kickConnect();
    throw new HandshakePendingError(
      `Connection failed for worker ${this.url}: ZMQ backend handshake has not completed yet`,
    );
  }

  /** Local liveness check; no network call. */
  probe(): ProbeOutcome {
    const c = this.client;
    if (c) {
      if (c.alive) return 'alive';
      this.deps.logger.warn(
        `ZMQ engine for ${this.url} is no longer alive; evicting the dead client and rebinding on a later probe`,
      );
      this.dropClient(c);
      return 'evicted';
    }
    this.kickConnect();
    return 'connecting';
  }

  /**
   * The live client latched dead: drop it (its close removes the socket files) and start a new
   * driver right away. The driver waits for that close before it binds the same addresses again.
   * False when there was no dead client to evict.
   */
  rebindAfterDeath(): boolean {
    const c = this.client;
    if (!c || c.alive) return false;
    this.dropClient(c);
    this.kickConnect();
    return true;
  }

  /** Starts the single background handshake driver unless one runs or a client is present. */
  kickConnect(): void {
    if (this.closed || this.client || this.driver || this.isHttp) return;
    const abort = new AbortController();
    const revision = this.revision;
    const { identity, deps } = this;
    const driver: Driver = { abort, done: Promise.resolve() };
    this.driver = driver;
    this.driverStartedAt = Date.now();
    this.boundAt = null;
    // The engine client logs `Binding ZMQ client for worker …` once its addresses are prepared.
    driver.done = this.releasing
      .then(() => {
        if (abort.signal.aborted) throw abort.signal.reason;
        return deps.connect({
          url: identity.url,
          runtime: identity.runtime,
          engineCount: identity.engineCount,
          handshakeAddress: identity.handshakeOverride ?? undefined,
          stageTimeoutMs: deps.stageTimeoutMs,
          silenceTimeoutMs: deps.silenceTimeoutMs,
          logger: deps.logger,
          signal: abort.signal,
          onBound: () => {
            if (this.driver !== driver) return;
            this.boundAt = Date.now();
            this.socketRefusal = null;
          },
        });
      })
      .then(
        (client) => {
          if (this.driver !== driver || this.closed || abort.signal.aborted) {
            // Removed or reset while the handshake ran: nobody may keep these binds.
            void client.close().catch(() => {});
            return;
          }
          this.driver = null;
          this.client = client;
          this.socketRefusal = null;
          client.onDead((err) => {
            if (this.client !== client) return;
            this.lastError = { message: err.message, at: Date.now() };
            deps.events.onDead(this, err);
          });
          deps.events.onConnected(this, revision);
        },
        (err: unknown) => {
          if (this.driver === driver) this.driver = null;
          if (abort.signal.aborted) return;
          const msg = err instanceof Error ? err.message : String(err);
          this.lastError = { message: msg, at: Date.now() };
          // Path checks and filesystem errors (mkdir EACCES…) come before any bind: a refusal that
          // repeats on every retry until the operator fixes the directory.
          const refused = err instanceof IpcPathError || (this.boundAt === null && isErrnoError(err));
          if (refused) this.socketRefusal = msg;
          deps.events.onError?.(this, refused ? 'socket_refused' : 'handshake_failed');
          deps.logger.warn(`ZMQ backend handshake failed for ${identity.url}: ${msg}; will retry on the next health probe`);
        },
      );
  }

  /**
   * Swaps in a new identity. A property-only change keeps the live connection; a change of
   * transport (runtime, engine count, handshake address) resets it under a new revision.
   */
  updateIdentity(next: WorkerIdentity): { transportReset: boolean } {
    const prev = this.identity;
    this.identity = next;
    const same =
      prev.runtime === next.runtime &&
      prev.engineCount === next.engineCount &&
      prev.handshakeAddress === next.handshakeAddress;
    if (same) return { transportReset: false };
    this.revision += 1;
    this.abortDriver();
    if (this.client) this.dropClient(this.client);
    return { transportReset: true };
  }

  /** Aborts the handshake and closes the client; binds and socket files are released. */
  async close(): Promise<void> {
    this.closed = true;
    this.revision += 1;
    const driver = this.abortDriver();
    if (driver) await withTimeout(driver.done, DRIVER_ABORT_WAIT_MS);
    if (this.client) this.dropClient(this.client);
    await this.releasing;
  }

  private abortDriver(): Driver | null {
    const d = this.driver;
    this.driver = null;
    d?.abort.abort(new Error(`worker ${this.url} removed`));
    return d;
  }

  private dropClient(c: EngineClientApi): void {
    if (this.client === c) this.client = null;
    const prev = this.releasing;
    this.releasing = prev.then(() => c.close()).catch((err: unknown) => {
      this.deps.logger.warn(`closing engine client for ${this.url} failed: ${(err as Error).message}`);
    });
  }
}

function isErrnoError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' && (err as NodeJS.ErrnoException).syscall !== undefined;
}

async function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p.catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref?.();
    }),
  ]);
  clearTimeout(timer);
}
