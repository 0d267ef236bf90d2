/**
 * Socket addresses of one ZMQ worker and the filesystem checks that must precede binding them.
 *
 * libzmq unlinks whatever sits at an ipc path when it binds (a regular file, another process's
 * live socket), so every safety check has to be ours. SMG's: a private directory owned by us,
 * and unlinking only socket files. Ours on top: the directory must not be writable by anyone
 * else (a world-writable sticky one like /tmp is refused even for root), and a socket somebody is
 * still listening on is never unlinked, so a second gateway cannot steal a live worker's sockets.
 */
import { lstat, mkdir, rmdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { handshakeAddressFor, ipcPathOf } from './fnv-port.js';
import { isLiveUnixSocket, SocketCheckError } from './live-socket.js';

/** sun_path is 108 bytes including the terminating NUL. */
export const SUN_PATH_MAX_BYTES = 107;

export interface EngineAddresses {
  /** The worker URL as given (`ipc://<path>`). */
  url: string;
  /** `<path>` without the scheme. */
  basePath: string;
  /** `ipc://<path>-in.sock` (input ROUTER). */
  input: string;
  /** `ipc://<path>-out.sock` (output PULL). */
  output: string;
  inputPath: string;
  outputPath: string;
  /** `tcp://host:port` of the handshake ROUTER. */
  handshake: string;
}

/** A configuration or filesystem problem found before any socket is bound. */
export class IpcPathError extends Error {
  override name = 'IpcPathError';
}

/**
 * Derives the three addresses of a worker. The override, when given, replaces the FNV-derived
 * handshake port and must be tcp:// because engines dial the handshake over TCP.
 */
export function deriveAddresses(url: string, handshakeOverride?: string | null): EngineAddresses {
  if (!url.startsWith('ipc://') || url.length === 'ipc://'.length) {
    throw new IpcPathError(`ZMQ worker URL must be ipc://<path>, got '${url}'`);
  }
  if (handshakeOverride != null && !handshakeOverride.startsWith('tcp://')) {
    throw new IpcPathError(
      `zmq_handshake_address must be a tcp:// address (the engine dials a TCP handshake), got '${handshakeOverride}'`,
    );
  }
  const basePath = ipcPathOf(url);
  const inputPath = `${basePath}-in.sock`;
  const outputPath = `${basePath}-out.sock`;
  // Check the longer of the two; a too-long path only fails later, deep inside bind().
  for (const p of [inputPath, outputPath]) {
    const bytes = Buffer.byteLength(p, 'utf8');
    if (bytes > SUN_PATH_MAX_BYTES) {
      throw new IpcPathError(
        `ipc socket path ${p} is ${bytes} bytes long; Unix socket paths are limited to ${SUN_PATH_MAX_BYTES} bytes (use a shorter worker path or socket dir)`,
      );
    }
  }
  return {
    url,
    basePath,
    input: `ipc://${inputPath}`,
    output: `ipc://${outputPath}`,
    inputPath,
    outputPath,
    handshake: handshakeOverride ?? handshakeAddressFor(url),
  };
}

function euid(): number | null {
  return typeof process.geteuid === 'function' ? process.geteuid() : null;
}

function isErrno(err: unknown, code: string): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === code;
}

/** The parts of an lstat result the directory rules read. */
export interface SocketDirStat {
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  uid: number;
  mode: number;
}

const S_ISVTX = 0o1000;
const GROUP_WRITE = 0o020;
const OTHER_WRITE = 0o002;

/**
 * Why `dir` may not hold our sockets, or null when it may. Pure (the caller does the lstat), so
 * the root-only cases are testable with a fake stat.
 */
export function socketDirProblem(dir: string, st: SocketDirStat, uid: number | null): string | null {
  if (st.isSymbolicLink()) {
    return `ipc socket dir ${dir} is a symlink; refusing to follow it (use the directory it points to, or a private directory)`;
  }
  if (!st.isDirectory()) return `ipc socket dir ${dir} exists but is not a directory`;
  const mode = st.mode & 0o7777;
  // Before the owner check: /tmp is root's, so for root only this rule stands in the way.
  if ((mode & OTHER_WRITE) !== 0 && (mode & S_ISVTX) !== 0) {
    const example = join(dir, `smg-zmq-${uid ?? '<uid>'}`);
    return `ipc socket dir ${dir} is a world-writable sticky directory (like /tmp); refusing to bind unauthenticated ZMQ sockets directly in it (use a private subdirectory such as ${example})`;
  }
  if (uid !== null && st.uid !== uid) {
    return `ipc socket dir ${dir} is owned by uid ${st.uid} (expected ${uid}); refusing to bind unauthenticated ZMQ sockets in a directory owned by another user`;
  }
  const writers = [(mode & GROUP_WRITE) !== 0 ? 'group' : null, (mode & OTHER_WRITE) !== 0 ? 'others' : null].filter(Boolean);
  if (writers.length > 0) {
    return `ipc socket dir ${dir} is writable by ${writers.join(' and ')} (mode 0${mode.toString(8)}); refusing to bind unauthenticated ZMQ sockets where other users can replace them (chmod go-w ${dir}, or use a private directory)`;
  }
  return null;
}

/**
 * Makes sure `dir` is a private place for our sockets: created 0700 when missing; an existing one
 * must pass `socketDirProblem`. Its permissions are never changed.
 */
export async function prepareSocketDir(dir: string): Promise<string[]> {
  let created: string[] = [];
  try {
    await lstat(dir);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    // mkdir -p reports the first directory it had to create: that one and those below it are ours.
    const first = await mkdir(dir, { recursive: true, mode: 0o700 });
    if (first !== undefined) created = createdChain(first, dir);
  }
  // Re-check after a possible mkdir: someone may have raced a symlink into place.
  const problem = socketDirProblem(dir, await lstat(dir), euid());
  if (problem !== null) throw new IpcPathError(problem);
  return created;
}

/** `first` and every directory below it down to `dir`, deepest first. */
function createdChain(first: string, dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; d.length >= first.length; d = dirname(d)) {
    out.push(d);
    if (d === first || d === dirname(d)) break;
  }
  return out;
}

/**
 * Removes the directories a worker's bind created (deepest first), each only while empty: they
 * are the gateway's, made for that worker, and are not left behind when it is deleted. A
 * directory something else has put files in stays, and so do the ones above it.
 */
export async function removeCreatedDirs(dirs: readonly string[]): Promise<void> {
  for (const d of dirs) {
    try {
      await rmdir(d);
    } catch {
      return;
    }
  }
}

/**
 * Unlinks a leftover socket file. Anything else at that path is refused, and so is a socket
 * something still listens on: libzmq would unlink it on bind and silently take the socket away
 * from whoever holds it (typically another gateway serving the same worker path).
 */
export async function removeStaleSocket(path: string): Promise<void> {
  let st;
  try {
    st = await lstat(path);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    throw err;
  }
  if (!st.isSocket()) {
    throw new IpcPathError(`ipc socket path ${path} exists but is not a socket; refusing to unlink`);
  }
  // Root may unlink anyone's file; a socket another user made is theirs, dead or not.
  const uid = euid();
  if (uid !== null && st.uid !== uid) {
    throw new IpcPathError(
      `ipc socket path ${path} belongs to uid ${st.uid}, not to this gateway (uid ${uid}); refusing to unlink another user's socket (give this worker a different ipc path)`,
    );
  }
  let live: boolean;
  try {
    live = await isLiveUnixSocket(path);
  } catch (err) {
    if (!(err instanceof SocketCheckError)) throw err;
    throw new IpcPathError(
      `ipc socket path ${path} exists and cannot be checked for a listener (${err.code ?? err.message}); refusing to unlink`,
    );
  }
  if (live) {
    throw new IpcPathError(
      `ipc socket path ${path} is live: another process (probably another gateway) is bound to it; refusing to unlink it (stop that process, or give this worker a different ipc path)`,
    );
  }
  try {
    await unlink(path);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
}

/**
 * Directory checks, then stale-socket removal for both data-plane paths. Returns the directories
 * it created (deepest first), for removeCreatedDirs when the worker goes.
 */
export async function prepareIpcEndpoints(addrs: EngineAddresses): Promise<string[]> {
  const created = await prepareSocketDir(dirname(addrs.inputPath));
  try {
    await removeStaleSocket(addrs.inputPath);
    await removeStaleSocket(addrs.outputPath);
  } catch (err) {
    await removeCreatedDirs(created);
    throw err;
  }
  return created;
}

/** Identity of a socket file we bound, so cleanup never removes a file another binder replaced. */
export interface BoundSocketFile {
  path: string;
  /** dev:ino:ctime-ns. tmpfs hands a freed inode number straight to the next file, so the
   * inode alone cannot tell our socket from its replacement. */
  fingerprint: string;
}

export async function statBoundSocket(path: string): Promise<BoundSocketFile | null> {
  try {
    const st = await lstat(path, { bigint: true });
    return st.isSocket() ? { path, fingerprint: `${st.dev}:${st.ino}:${st.ctimeNs}` } : null;
  } catch {
    return null;
  }
}

/**
 * Removes socket files we created (libzmq leaves them behind on close). A file that changed
 * inode belongs to whoever bound the path after us and is left alone.
 */
export async function removeOwnSocketFiles(files: readonly (BoundSocketFile | null)[]): Promise<void> {
  await Promise.all(
    files.map(async (f) => {
      if (!f) return;
      const now = await statBoundSocket(f.path);
      if (!now || now.fingerprint !== f.fingerprint) return;
      try {
        await unlink(f.path);
      } catch {
        // Already gone: nothing to clean.
      }
    }),
  );
}
