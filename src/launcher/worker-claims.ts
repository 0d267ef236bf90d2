/**
 * Pid files in the socket directory: `engine-<worker port>.pid` next to that worker's
 * `engine-<port>-in.sock` / `-out.sock`. One file per worker port says which `smg serve` owns the
 * port and which engine (and reaper) currently serves it. They give two guarantees:
 * - two live serves never pick the same worker port, even when vLLM never binds it (the file is
 *   created atomically, so a concurrent start loses the race cleanly and moves on);
 * - a serve that died without cleaning up (SIGKILL, a crash of the reaper too) can be recognised
 *   by the next serve, which stops the engines it left and removes its files (stale-engines.ts).
 *
 * Writes are synchronous: they are tiny, they must be complete before the next spawn or exit, and
 * the exit paths that remove them cannot wait for promises.
 */
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processRef, type ProcessRef } from './process-identity.js';

export interface WorkerClaim {
  readonly serve: ProcessRef;
  /** `engine-<index>` of the serve that owns it (for messages). */
  readonly label: string;
  readonly url: string;
  readonly workerPort: number;
  readonly handshakePort: number;
  /** The engine process currently serving this worker; it leads its own process group. */
  readonly engine: ProcessRef | null;
  /** The engine's reaper (reaper.ts), if one runs. */
  readonly reaper: ProcessRef | null;
}

export const CLAIM_FILE_RE = /^engine-(\d+)\.pid$/;

export function claimFilePath(socketDir: string, workerPort: number): string {
  return join(socketDir, `engine-${workerPort}.pid`);
}

function isErrno(err: unknown, code: string): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === code;
}

function isRef(v: unknown): v is ProcessRef {
  const r = v as ProcessRef | null;
  return typeof r === 'object' && r !== null && Number.isInteger(r.pid) && (r.start === null || typeof r.start === 'string');
}

/** The claim at `path`; null when missing or not a claim this code wrote. */
export function readClaim(path: string): WorkerClaim | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const c = JSON.parse(text) as WorkerClaim;
    if (!isRef(c.serve) || typeof c.url !== 'string' || !Number.isInteger(c.workerPort)) return null;
    return {
      serve: c.serve,
      label: typeof c.label === 'string' ? c.label : `engine-${c.workerPort}`,
      url: c.url,
      workerPort: c.workerPort,
      handshakePort: Number(c.handshakePort),
      engine: isRef(c.engine) ? c.engine : null,
      reaper: isRef(c.reaper) ? c.reaper : null,
    };
  } catch {
    return null;
  }
}

const tmpPath = (path: string): string => `${path}.${process.pid}.tmp`;

/** Creates the claim only if no file exists at `path`; false when somebody else has it. */
export function createClaim(path: string, claim: WorkerClaim): boolean {
  const tmp = tmpPath(path);
  writeFileSync(tmp, JSON.stringify(claim), { mode: 0o600 });
  try {
    // link(2) fails with EEXIST instead of replacing: the atomic "create if absent" with content.
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return false;
    throw err;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
}

/** Replaces the claim's content atomically (readers never see half a file). */
export function rewriteClaim(path: string, claim: WorkerClaim): void {
  const tmp = tmpPath(path);
  writeFileSync(tmp, JSON.stringify(claim), { mode: 0o600 });
  renameSync(tmp, path);
}

/** Removes the claim at `path` if it still names `serve` (never another serve's newer claim). */
export function removeClaimOf(path: string, serve: ProcessRef): void {
  const c = readClaim(path);
  if (c === null || c.serve.pid !== serve.pid || c.serve.start !== serve.start) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The claims one `smg serve` holds, by worker port. */
export class WorkerClaims {
  readonly self: ProcessRef = processRef(process.pid);
  private readonly held = new Map<number, { path: string; claim: WorkerClaim }>();

  constructor(readonly socketDir: string) {}

  /** Claims `workerPort` for this serve; false when another file is in the way. */
  claim(workerPort: number, url: string, handshakePort: number, label: string): boolean {
    const path = claimFilePath(this.socketDir, workerPort);
    const claim: WorkerClaim = { serve: this.self, label, url, workerPort, handshakePort, engine: null, reaper: null };
    if (!createClaim(path, claim)) return false;
    this.held.set(workerPort, { path, claim });
    return true;
  }

  /** Records the engine (and its reaper) now serving `workerPort`. */
  recordEngine(workerPort: number, engine: ProcessRef, reaper: ProcessRef | null): void {
    this.update(workerPort, { engine, reaper });
  }

  ports(): number[] {
    return [...this.held.keys()];
  }

  pathOf(workerPort: number): string | undefined {
    return this.held.get(workerPort)?.path;
  }

  /** Drops the claims; synchronous so it can run in an 'exit' handler. Idempotent. */
  releaseAll(): void {
    for (const { path } of this.held.values()) removeClaimOf(path, this.self);
    this.held.clear();
  }

  private update(workerPort: number, patch: Partial<WorkerClaim>): void {
    const entry = this.held.get(workerPort);
    if (!entry) return;
    entry.claim = { ...entry.claim, ...patch };
    try {
      rewriteClaim(entry.path, entry.claim);
    } catch {
      // The socket dir vanished under us; the claim only helps the next serve.
    }
  }
}
