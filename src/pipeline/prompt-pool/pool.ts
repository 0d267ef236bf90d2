/**
 * A small pool of prompt worker threads for one model. Threads start in the background when the
 * model's tokenizer loads; until one is ready (or while none is), `submit` returns null and the
 * caller does the work on the event loop itself. A thread that dies fails the jobs it held with a
 * 500 and is replaced. An idle pool never keeps the process alive.
 */
import { Worker } from 'node:worker_threads';
import { attachPackedTokenIds } from '../../engine/msgpack/packed-token-ids.js';
import { laterTurn } from '../../util/fair-turn.js';
import type { RenderRequest } from '../chat-prompt/chat-template.js';
import { pythonJsonText } from '../chat-prompt/template-compiler/python-json.js';
import { ChatTemplateError } from '../chat-prompt/chat-template-error.js';
import { PipelineError } from '../errors.js';
import type { EncoderKind, PromptJob, PromptReply, PromptWorkerInit, WorkerHello } from './protocol.js';

export interface PromptPoolOptions {
  /**
   * Worker threads. By default one on the Rust binding (its encodes already run in parallel on the
   * libuv pool, and a thread holding it costs ~180 MiB) and two on the fast encoder or the JS
   * library (whose encodes, and every thread's template renders, run on the thread itself).
   */
  size?: number;
  /** Starts one worker thread (tests substitute an entry that misbehaves on cue). */
  spawn?: (init: PromptWorkerInit) => Worker;
  /** Told when a thread is ready (with its encoder and why it is not the one asked for) or died. */
  onEvent?: (event: PromptPoolEvent) => void;
}

export type PromptPoolEvent =
  | { kind: 'ready'; encoder: EncoderKind; note: string | null }
  /** A thread died or could not start; another is started (after a back-off when it keeps failing). */
  | { kind: 'exit'; message: string };

interface Pending {
  resolve(ids: number[] | null | Promise<number[]>): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  pending: Map<number, Pending>;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);
// A thread that keeps dying before it is ready (a tokenizer it cannot load, no memory) is retried
// slowly rather than in a tight loop.
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;

const live = new Set<PromptPool>();

/** Terminates every pool's threads (the gateway's shutdown path). */
export async function closePromptPools(): Promise<void> {
  await Promise.all([...live].map((p) => p.close()));
}

function defaultSpawn(init: PromptWorkerInit): Worker {
  return new Worker(ENTRY, { workerData: init, name: 'smg-prompt' });
}

/**
 * Ids converted per event-loop turn: ~0.3 ms at ~8 ns each. A 131k-token prompt's ids came back as
 * one 1-4 ms conversion (a 2,000-message conversation's 231k ids 2-6 ms), holding every stream.
 */
const IDS_PER_TURN = 32_768;

/**
 * The thread's ids as the number[] the pipeline works with (routing's prefix index, the
 * detokenizer's left context, usage counts, /tokenize); a long list a slice per turn. With the
 * thread's `packed` bytes attached, the engine guard and ADD encoder splice those in instead of
 * walking the list (packed-token-ids.ts).
 */
function toNumbers(ids: Uint32Array, packed: Uint8Array | undefined): number[] | Promise<number[]> {
  const out = new Array<number>(ids.length);
  if (ids.length <= IDS_PER_TURN) {
    for (let i = 0; i < ids.length; i++) out[i] = ids[i];
    if (packed) attachPackedTokenIds(out, packed);
    return out;
  }
  return (async () => {
    for (let from = 0; from < ids.length; from += IDS_PER_TURN) {
      // The first slice at once, the rest in turn with the other request work (util/fair-turn.ts).
      if (from > 0) await laterTurn();
      const to = Math.min(ids.length, from + IDS_PER_TURN);
      for (let i = from; i < to; i++) out[i] = ids[i];
    }
    if (packed) attachPackedTokenIds(out, packed);
    // What the request does next with the ids (routing, the engine guard, ADD encode and send:
    // ~0.5 ms for 131k packed ids, 1.5-3 ms unpacked) starts a turn's share of its own, not in
    // the turn of the last slice.
    await laterTurn();
    return out;
  })();
}

export class PromptPool {
  private readonly slots: Array<Slot | null>;
  private readonly autoSize: boolean;
  private readonly spawn: (init: PromptWorkerInit) => Worker;
  private readonly onEvent: (event: PromptPoolEvent) => void;
  private nextId = 1;
  private closed = false;
  private failures = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Told when a thread becomes ready or the pool closes (`readySoon`). */
  private readonly readyWaiters = new Set<() => void>();

  constructor(
    private readonly init: PromptWorkerInit,
    opts: PromptPoolOptions = {},
  ) {
    this.spawn = opts.spawn ?? defaultSpawn;
    this.onEvent = opts.onEvent ?? (() => {});
    this.autoSize = opts.size === undefined;
    this.slots = new Array<Slot | null>(Math.max(1, opts.size ?? 1)).fill(null);
    live.add(this);
    for (let i = 0; i < this.slots.length; i++) this.startSlot(i);
  }

  /** Threads ready for jobs. */
  get readyCount(): number {
    let n = 0;
    for (const s of this.slots) if (s?.ready) n++;
    return n;
  }

  /**
   * Renders with the model's chat template and encodes. Null when no thread is ready, and
   * resolves to null when the thread declined the text (the caller then does it on the loop).
   */
  encodeChat(request: RenderRequest): Promise<number[] | null> | null {
    if (!request.tools) return this.submit({ id: 0, op: 'chat', request });
    // Tool schemas keep their numbers and key order as Python values (python-json.ts), which a
    // structured clone would not: they cross as the JSON text json.dumps would write.
    return this.submit({ id: 0, op: 'chat', request: { ...request, tools: null }, toolsJson: pythonJsonText(request.tools) });
  }

  /** Encodes plain text; null as for `encodeChat`. */
  encodeText(text: string): Promise<number[] | null> | null {
    return this.submit({ id: 0, op: 'text', text });
  }

  /**
   * Whether a thread is ready, or becomes ready within `timeoutMs`. For a long text arriving while
   * the threads still start (the first second after a model loads): encoding 131k tokens on the
   * loop instead holds it for 30-60 ms. False at once when threads have been failing to start (the
   * caller then does the work on the loop, as before) or the pool is closed.
   */
  readySoon(timeoutMs: number): boolean | Promise<boolean> {
    if (this.readyCount > 0) return true;
    if (this.closed || this.failures > 0) return false;
    return new Promise<boolean>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.readyWaiters.delete(done);
        resolve(this.readyCount > 0);
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      this.readyWaiters.add(done);
    });
  }

  private wakeReadyWaiters(): void {
    for (const wake of [...this.readyWaiters]) wake();
  }

  /**
   * Resolves once `count` threads (default: all the pool runs) are ready. For tests and
   * benchmarks: requests never wait for a thread.
   */
  async whenReady(count?: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.readyCount < (count ?? this.slots.length)) {
      if (this.closed) throw new Error('prompt pool closed');
      if (Date.now() > deadline) throw new Error(`prompt pool: ${this.readyCount}/${count ?? this.slots.length} threads ready after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    live.delete(this);
    this.wakeReadyWaiters();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const exits: Array<Promise<number>> = [];
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      if (!slot) continue;
      this.slots[i] = null;
      this.failAll(slot, 'the prompt pool was closed');
      exits.push(slot.worker.terminate());
    }
    await Promise.all(exits);
  }

  private submit(job: PromptJob): Promise<number[] | null> | null {
    let best: Slot | null = null;
    for (const s of this.slots) {
      if (s?.ready && (best === null || s.pending.size < best.pending.size)) best = s;
    }
    if (best === null) return null;
    const slot = best;
    job.id = this.nextId++;
    let pending!: Pending;
    const done = new Promise<number[] | null>((resolve, reject) => {
      pending = { resolve, reject };
    });
    try {
      slot.worker.postMessage(job);
    } catch {
      // Not cloneable (never the case for a parsed JSON body): the caller does it on the loop.
      return null;
    }
    slot.pending.set(job.id, pending);
    // Only a thread with work keeps the process alive.
    if (slot.pending.size === 1) slot.worker.ref();
    return done;
  }

  private startSlot(index: number): void {
    let worker: Worker;
    try {
      worker = this.spawn(this.init);
    } catch (err) {
      this.slots[index] = null;
      this.failures++;
      this.scheduleRestart(index, `the prompt worker thread did not start: ${(err as Error).message}`);
      return;
    }
    const slot: Slot = { worker, ready: false, pending: new Map() };
    this.slots[index] = slot;
    let lastError: Error | null = null;
    worker.on('message', (msg: WorkerHello | PromptReply) => {
      if ('ready' in msg) {
        if (!msg.ready) {
          lastError = new Error(msg.message);
          void worker.terminate();
          return;
        }
        slot.ready = true;
        this.failures = 0;
        worker.unref();
        this.wakeReadyWaiters();
        this.onEvent({ kind: 'ready', encoder: msg.encoder, note: msg.note });
        if (this.autoSize && msg.encoder !== 'native' && this.slots.length === 1) {
          this.slots.push(null);
          this.startSlot(1);
        }
        return;
      }
      this.settle(slot, msg);
    });
    worker.on('error', (err) => {
      lastError = err;
    });
    worker.on('exit', (code) => {
      if (this.slots[index] !== slot) return;
      this.slots[index] = null;
      const why = lastError ? `${lastError.message}` : `exit code ${code}`;
      this.failAll(slot, `the prompt worker thread exited (${why})`);
      if (!slot.ready) this.failures++;
      this.scheduleRestart(index, `the prompt worker thread exited (${why})`);
    });
  }

  private scheduleRestart(index: number, message: string): void {
    if (this.closed) return;
    this.onEvent({ kind: 'exit', message });
    if (this.failures === 0) {
      this.startSlot(index);
      return;
    }
    const delay = Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** (this.failures - 1));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) this.startSlot(index);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private settle(slot: Slot, reply: PromptReply): void {
    const pending = slot.pending.get(reply.id);
    if (!pending) return;
    slot.pending.delete(reply.id);
    if (slot.pending.size === 0) slot.worker.unref();
    if ('ids' in reply) pending.resolve(toNumbers(reply.ids, reply.packed));
    else if ('declined' in reply) pending.resolve(null);
    else if (reply.error === 'template') pending.reject(new ChatTemplateError(reply.message));
    else pending.reject(tokenizationFailed(reply.message));
  }

  private failAll(slot: Slot, message: string): void {
    const err = tokenizationFailed(message);
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
  }
}

function tokenizationFailed(message: string): PipelineError {
  return new PipelineError(500, 'tokenization_failed', `Tokenization failed: ${message}`);
}
