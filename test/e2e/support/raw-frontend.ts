/**
 * A hand-driven engine frontend for the raw-wire e2e files: the bound ROUTER (handshake), ROUTER
 * (input) and PULL (output) a gateway would own, so a test can send what the real gateway never
 * would and read back exact messages. Subclasses read the handshake in their engine's dialect.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pull, Router } from 'zeromq';
import { engineIdFor } from '../../../src/engine/engine-id.js';
import { encodeInit } from '../../../src/engine/handshake-messages.js';
import { decodeMsgpack } from '../../../src/engine/msgpack/reader.js';

const WAIT_CEILING_MS = 60_000;
import { freeTcpPort, type MockEngineProcess } from '../../../src/mock-engine/spawn.js';

export abstract class RawFrontend {
  readonly hs = new Router({ linger: 0, receiveTimeout: 15_000 });
  readonly input = new Router({ linger: 0, receiveTimeout: 15_000 });
  readonly output = new Pull({ linger: 0 });
  readonly registrations = new Map<number, Record<string, unknown>>();
  private inbox: Buffer[][] = [];
  private waiter: (() => void) | null = null;
  private dir = '';
  private closed = false;

  constructor(private readonly tmpPrefix: string) {}

  /** Records a handshake-socket message; true when it is a HELLO (then answered with INIT). */
  protected abstract onStatus(id: Buffer, payload: Buffer): boolean;
  /** READY messages seen so far. */
  protected abstract readyCount(): number;

  get dirPath(): string {
    return this.dir;
  }

  async bind(port: number): Promise<void> {
    this.dir = await mkdtemp(join(tmpdir(), this.tmpPrefix));
    await this.input.bind(`ipc://${this.dir}/in.sock`);
    await this.output.bind(`ipc://${this.dir}/out.sock`);
    await this.hs.bind(`tcp://127.0.0.1:${port}`);
  }

  async handshake(n: number): Promise<void> {
    while (this.readyCount() < n) {
      const [id, payload] = await this.hs.receive();
      if (this.onStatus(id, payload)) await this.hs.send([id, encodeInit(`ipc://${this.dir}/in.sock`, `ipc://${this.dir}/out.sock`)]);
    }
    while (this.registrations.size < n) {
      const [id, payload] = await this.input.receive();
      this.registrations.set(id.readUInt16LE(0), decodeMsgpack(payload) as Record<string, unknown>);
    }
    void this.pump();
  }

  private async pump(): Promise<void> {
    while (!this.closed) {
      try {
        this.inbox.push(await this.output.receive());
      } catch {
        return;
      }
      this.waiter?.();
    }
  }

  /** To the engine whose identity is `engine` (a vLLM rank, a TokenSpeed engine index). */
  async send(engine: number, frames: Buffer[]): Promise<void> {
    await this.input.send([engineIdFor(engine), ...frames]);
  }

  /**
   * The next output message (raw frames). The default is a ceiling, not an expectation: on a busy
   * 2-core machine an engine process can take seconds to answer.
   */
  async next(timeoutMs = WAIT_CEILING_MS): Promise<Buffer[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.inbox.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no output message in time');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.waiter = null;
    }
    return this.inbox.shift() as Buffer[];
  }

  /** The next output message's first frame, decoded. */
  protected async nextDecoded<T>(timeoutMs?: number): Promise<T> {
    return decodeMsgpack((await this.next(timeoutMs))[0]) as T;
  }

  /** Decoded messages until `pred` holds for one of them (that one included). */
  protected async collectUntil<T>(pred: (m: T) => boolean, timeoutMs = WAIT_CEILING_MS): Promise<T[]> {
    const seen: T[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = await this.nextDecoded<T>(Math.max(1, deadline - Date.now()));
      seen.push(m);
      if (pred(m)) return seen;
    }
  }

  /** True when nothing arrives for `ms`. */
  async quietFor(ms: number): Promise<boolean> {
    try {
      await this.next(ms);
      return false;
    } catch {
      return true;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of [this.hs, this.input, this.output]) if (!s.closed) s.close();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

export interface RawRig<F extends RawFrontend> {
  fe: F;
  engine: MockEngineProcess;
}

/** The rigs of one test file; stopAll() in afterEach. */
export class RawRigs<F extends RawFrontend> {
  private readonly live: RawRig<F>[] = [];

  /** Binds `fe` on a free port, spawns the engine dialing it, and waits for `ranks` handshakes. */
  async start(fe: F, spawnEngine: (port: number) => MockEngineProcess, ranks: number): Promise<RawRig<F>> {
    const port = await freeTcpPort();
    await fe.bind(port);
    const rig = this.track({ fe, engine: spawnEngine(port) });
    await fe.handshake(ranks);
    return rig;
  }

  /** For a test that drives the handshake by hand. */
  track(rig: RawRig<F>): RawRig<F> {
    this.live.push(rig);
    return rig;
  }

  async stopAll(): Promise<void> {
    for (const r of this.live.splice(0)) {
      await r.engine.stop();
      await r.fe.close();
    }
  }
}
