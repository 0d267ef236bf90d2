/**
 * A fake engine connection for tests of the worker and gateway layers: a connector whose
 * handshakes the test completes, fails or lets hang, and clients the test can kill.
 */
import { EngineError, type EngineClientApi, type RankState, type RequestStream } from '../../src/engine/client-types.js';
import type { EngineRequest, Registration, RuntimeType } from '../../src/engine/types.js';
import type { ConnectEngineFn, WorkerConnectOptions } from '../../src/workers/connect.js';

export class FakeEngineClient implements EngineClientApi {
  readonly registrations: readonly Registration[] = [];
  readonly maxModelLen = 4096;
  alive = true;
  closed = false;
  rankStates: RankState[];
  private readonly deadListeners: ((err: EngineError) => void)[] = [];

  constructor(
    readonly url: string,
    readonly runtime: RuntimeType,
    engineCount = 1,
  ) {
    this.rankStates = Array.from({ length: engineCount }, (_, rank) => ({ rank, inFlight: 0, load: null }));
  }

  submit(_req: EngineRequest): RequestStream {
    throw new EngineError('invalid', 'FakeEngineClient does not generate');
  }
  abort(_requestId: string): void {}
  ranks(): RankState[] {
    return this.rankStates.map((r) => ({ ...r }));
  }
  onDead(listener: (err: EngineError) => void): void {
    this.deadListeners.push(listener);
  }
  /** Latch dead the way a real client does (sentinel, disconnect, silence…). */
  kill(message = 'engine core reported fatal failure'): void {
    if (!this.alive) return;
    this.alive = false;
    const err = new EngineError('dead', message);
    for (const l of this.deadListeners) l(err);
  }
  async close(): Promise<void> {
    this.alive = false;
    this.closed = true;
  }
}

export interface PendingHandshake {
  opts: WorkerConnectOptions;
  /** Set when the worker aborted the handshake (removal/replacement): binds released. */
  aborted: boolean;
  complete(): FakeEngineClient;
  fail(message: string): void;
  /** Rejects with this error (e.g. an IpcPathError, as a refused socket directory). */
  failWith(err: Error): void;
  /** Reports the sockets bound (what the real client does once its path checks pass). */
  bound(): void;
}

export class FakeConnector {
  readonly calls: WorkerConnectOptions[] = [];
  readonly pending: PendingHandshake[] = [];
  readonly clients: FakeEngineClient[] = [];
  /** Complete every handshake at once (for tests that only need a ready worker). */
  auto = false;
  /** False simulates a client that ignores the abort signal, so a stale completion can arrive late. */
  honorAbort = true;

  readonly connect: ConnectEngineFn = (opts) => {
    this.calls.push(opts);
    return new Promise<EngineClientApi>((resolve, reject) => {
      const hs: PendingHandshake = {
        opts,
        aborted: false,
        complete: () => {
          const c = new FakeEngineClient(opts.url, opts.runtime, opts.engineCount);
          this.clients.push(c);
          this.drop(hs);
          resolve(c);
          return c;
        },
        fail: (message) => {
          this.drop(hs);
          reject(new Error(message));
        },
        failWith: (err) => {
          this.drop(hs);
          reject(err);
        },
        bound: () => opts.onBound?.(),
      };
      opts.signal.addEventListener('abort', () => {
        hs.aborted = true;
        if (!this.honorAbort) return;
        this.drop(hs);
        reject(opts.signal.reason);
      });
      this.pending.push(hs);
      if (this.auto) queueMicrotask(() => hs.complete());
    });
  };

  /** The handshake in progress for `url` (the latest one). */
  pendingFor(url: string): PendingHandshake | undefined {
    return [...this.pending].reverse().find((p) => p.opts.url === url);
  }

  private drop(hs: PendingHandshake): void {
    const i = this.pending.indexOf(hs);
    if (i >= 0) this.pending.splice(i, 1);
  }
}
