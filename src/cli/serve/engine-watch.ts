/**
 * Joins what the launcher knows about engine *processes* with what the gateway knows about
 * engine *connections*, through the gateway's existing connect seam (no change to the worker
 * registry):
 * - a completed handshake is reported with the engine's context length (the startup display);
 * - a handshake that failed for a reason retrying will not fix by itself (the stage timeout
 *   passed, the sockets could not be bound) is reported too: at start-up, serve gives up when no
 *   engine can complete its handshake;
 * - when the launcher sees an engine process exit, the connection of that worker is declared dead
 *   at once. The registry reacts exactly as to a dead sentinel: the worker leaves `ready`, the
 *   next probe evicts the client and rebinds, and a restarted engine dials back in. Without this
 *   the gateway would rely on noticing the socket disconnect, which a grandchild still holding the
 *   socket (or a silent engine) can delay indefinitely.
 */
import { EngineError, type EngineClientApi } from '../../engine/client-types.js';
import { HandshakeError } from '../../engine/handshake.js';
import { IpcPathError } from '../../engine/ipc-path.js';
import type { ConnectEngineFn } from '../../workers/connect.js';

export interface HandshakeEvent {
  readonly url: string;
  /** The smallest max_model_len across the worker's engines. */
  readonly contextLength: number;
  readonly engines: number;
}

export interface HandshakeFailure {
  readonly url: string;
  /** The gateway's own text, e.g. `startup handshake timed out while waiting for HELLO after 600s`. */
  readonly message: string;
}

/** Failures a retry on the next probe does not cure by itself (cancellation is not a failure). */
function isLasting(err: unknown): err is Error {
  if (err instanceof IpcPathError) return true;
  return err instanceof HandshakeError && (err.kind === 'timeout' || err.kind === 'bind' || err.kind === 'config');
}

export class EngineWatch {
  /** The newest connection per worker URL. */
  private readonly clients = new Map<string, WatchedClient>();

  constructor(
    private readonly inner: ConnectEngineFn,
    private readonly onHandshake: (event: HandshakeEvent) => void,
    private readonly onHandshakeFailed: (failure: HandshakeFailure) => void = () => {},
  ) {}

  readonly connect: ConnectEngineFn = async (opts) => {
    let connected: EngineClientApi;
    try {
      connected = await this.inner(opts);
    } catch (err) {
      if (isLasting(err) && !opts.signal.aborted) this.onHandshakeFailed({ url: opts.url, message: err.message });
      throw err;
    }
    const client = new WatchedClient(connected);
    this.clients.set(opts.url, client);
    this.onHandshake({ url: opts.url, contextLength: client.maxModelLen, engines: client.registrations.length });
    return client;
  };

  /** The engine process behind `url` is gone; returns false if no live connection was affected. */
  engineExited(url: string, reason: string): boolean {
    const client = this.clients.get(url);
    if (!client) return false;
    this.clients.delete(url);
    return client.declareDead(reason);
  }
}

/** An engine client whose death can also be declared from outside; delegates everything else. */
class WatchedClient implements EngineClientApi {
  private forced: EngineError | null = null;
  private readonly listeners: ((err: EngineError) => void)[] = [];
  private death: EngineError | null = null;

  constructor(private readonly inner: EngineClientApi) {
    inner.onDead((err) => this.notify(err));
  }

  get url(): string {
    return this.inner.url;
  }
  get runtime(): EngineClientApi['runtime'] {
    return this.inner.runtime;
  }
  get registrations(): EngineClientApi['registrations'] {
    return this.inner.registrations;
  }
  get maxModelLen(): number {
    return this.inner.maxModelLen;
  }
  get alive(): boolean {
    return this.forced === null && this.inner.alive;
  }

  submit(req: Parameters<EngineClientApi['submit']>[0]): ReturnType<EngineClientApi['submit']> {
    if (this.forced) throw this.forced;
    return this.inner.submit(req);
  }
  abort(requestId: string): void {
    this.inner.abort(requestId);
  }
  ranks(): ReturnType<EngineClientApi['ranks']> {
    return this.inner.ranks();
  }
  onDead(listener: (err: EngineError) => void): void {
    const death = this.death;
    // Same contract as the real client: a listener added after the death still hears it.
    if (death) queueMicrotask(() => listener(death));
    else this.listeners.push(listener);
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  declareDead(reason: string): boolean {
    if (this.forced || !this.inner.alive) return false;
    this.forced = new EngineError('dead', reason);
    // In-flight requests fail now rather than at the silence timeout: closing ends their streams.
    void this.inner.close().catch(() => {});
    this.notify(this.forced);
    return true;
  }

  /** Whichever death comes first (the wire's or the launcher's) is the one listeners hear. */
  private notify(err: EngineError): void {
    if (this.death) return;
    this.death = err;
    for (const l of this.listeners.splice(0)) l(err);
  }
}
