/**
 * Socket addresses of one ZMQ worker and the filesystem checks that must precede binding them.
 *
 * libzmq unlinks whatever sits at an ipc path when it binds (a regular file, another process's
 * live socket), so every safety check SMG documents has to be ours: private directory, owner
 * check, and unlinking only socket files.
 */
import { lstat, mkdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { handshakeAddressFor, ipcPathOf } from './fnv-port.js';

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

/**
 * Makes sure `dir` is a private place for our sockets: created 0700 when missing; an existing one
 * must be a real directory (a symlink is refused, not followed) owned by our effective uid. Its
 * permissions are never changed.
 */
export async function prepareSocketDir(dir: string): Promise<void> {
  try {
    await lstat(dir);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
  // Re-check after a possible mkdir: someone may have raced a symlink into place.
  const st = await lstat(dir);
  if (!st.isDirectory()) {
    throw new IpcPathError(`ipc socket dir ${dir} exists but is not a directory`);
  }
  const me = euid();
  if (me !== null && st.uid !== me) {
    throw new IpcPathError(
      `ipc socket dir ${dir} is owned by uid ${st.uid} (expected ${me}); refusing to bind unauthenticated ZMQ sockets in a directory owned by another user`,
    );
  }
}

/** Unlinks a leftover socket file; anything else at that path is refused. */
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
  try {
    await unlink(path);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
}

/** Directory checks, then stale-socket removal for both data-plane paths. */
export async function prepareIpcEndpoints(addrs: EngineAddresses): Promise<void> {
  await prepareSocketDir(dirname(addrs.inputPath));
  await removeStaleSocket(addrs.inputPath);
  await removeStaleSocket(addrs.outputPath);
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
