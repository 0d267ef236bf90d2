/**
 * What the workers API checks before it answers 202: everything about a spec that can be known
 * without touching the network or the filesystem. A job that can only fail must not be queued,
 * and a spec that would make the gateway create or unlink files in places the operator did not
 * choose (a path relative to the gateway's working directory, one walking out with `..`) must be
 * refused before it is acted on: without --api-key anyone who reaches the port can send one.
 * The URL's general form (SMG's `worker_url` texts) is url-checks.ts's; this module holds the
 * limits of this gateway's backends.
 */
import { posix } from 'node:path';
import { SUN_PATH_MAX_BYTES } from '../engine/ipc-path.js';
import { dpAwareRefusal } from './registration-types.js';
import type { WorkerSpec } from './types.js';

/**
 * The schemes this gateway has a backend for: ZMQ direct workers (ipc://) and HTTP upstreams
 * (src/forward/: another smg serve, vllm serve, SGLang).
 */
export const API_WORKER_SCHEMES: readonly string[] = ['ipc://', 'http://', 'https://'];

/** Runtimes the ZMQ direct backend speaks (smg-newest: vLLM and TokenSpeed). */
export const ZMQ_RUNTIMES: readonly string[] = ['vllm', 'tokenspeed'];

/**
 * URLs longer than this are refused: an ipc path can be 107 bytes at most anyway, and 2,048 is the
 * long-standing practical URL ceiling (no backend takes more), so nothing larger is ever echoed,
 * logged or hashed.
 */
export const MAX_WORKER_URL_CHARS = 2048;

/**
 * The largest `dp_size` accepted: each rank is one engine process with its own identity, sockets
 * and load entry. The largest public data-parallel deployments run a few hundred ranks (e.g. 320
 * GPUs for DeepSeek-V3 expert parallelism); 1,024 leaves room and keeps one spec from asking the
 * gateway for a billion ranks.
 */
export const MAX_DP_SIZE = 1024;

/** The socket files' suffixes (engine/ipc-path.ts): the longer one bounds the base path. */
const LONGEST_SUFFIX = '-out.sock';

export interface SpecProblem {
  /** The gateway envelope's code and param. */
  code: 'invalid_worker_url' | 'invalid_worker_spec';
  param: string;
  message: string;
}

const urlProblem = (url: string, reason: string): SpecProblem => ({
  code: 'invalid_worker_url',
  param: 'url',
  message: `Invalid value for field 'worker_url': ${url.length > 200 ? `${url.slice(0, 200)}…` : url} - ${reason}`,
});

const specProblem = (param: string, message: string): SpecProblem => ({ code: 'invalid_worker_spec', param, message });

/** Why this gateway cannot serve `spec`, or null. Runs after url-checks.ts's general URL checks. */
export function workerSpecProblem(spec: WorkerSpec, opts: { dpAware: boolean }): SpecProblem | null {
  const { url } = spec;
  if (url.length > MAX_WORKER_URL_CHARS) return urlProblem(url, `URL is ${url.length} characters long; at most ${MAX_WORKER_URL_CHARS} are accepted`);
  const scheme = API_WORKER_SCHEMES.find((s) => url.startsWith(s));
  if (!scheme) {
    return urlProblem(url, `this gateway serves ${API_WORKER_SCHEMES.join(', ')} workers only`);
  }
  if (scheme === 'ipc://') {
    const bad = ipcPathProblem(url.slice(scheme.length));
    if (bad) return urlProblem(url, bad);
    if (spec.runtimeType !== null && !ZMQ_RUNTIMES.includes(spec.runtimeType)) {
      return specProblem(
        'runtime_type',
        `runtime_type ${spec.runtimeType} is not supported over the ZMQ direct backend: use one of ${ZMQ_RUNTIMES.join(', ')}`,
      );
    }
    if (spec.workerType !== 'regular') {
      return specProblem(
        'worker_type',
        `worker_type ${spec.workerType} is not supported over the ZMQ direct backend: it carries no KV-transfer metadata and has no encode path (only regular)`,
      );
    }
    const hs = spec.zmqHandshakeAddress;
    if (hs !== null) {
      const bad = handshakeProblem(hs);
      if (bad) return specProblem('zmq_handshake_address', bad);
    }
  }
  const dp = spec.dpSize;
  if (dp !== null && (dp < 1 || dp > MAX_DP_SIZE)) {
    return specProblem('dp_size', `dp_size must be between 1 and ${MAX_DP_SIZE}, got ${dp}`);
  }
  if (opts.dpAware && dp !== null && dp > 1) return specProblem('dp_size', dpAwareRefusal(url, dp, scheme !== 'ipc://'));
  return null;
}

/**
 * An ipc path must be absolute and already normal: no `.`/`..` segments, no doubled or trailing
 * slash, no NUL, and short enough for sun_path with the socket suffix. The gateway creates the
 * directory and binds (unlinking a stale socket) there, so the path must say exactly where.
 */
export function ipcPathProblem(path: string): string | null {
  if (path.includes('\0')) return 'the ipc path contains a NUL byte';
  if (!path.startsWith('/')) return `the ipc path must be absolute (ipc:///dir/name), got '${path}'`;
  if (path.split('/').some((seg) => seg === '..' || seg === '.')) return "the ipc path must not contain '.' or '..' segments";
  if (posix.normalize(path) !== path || path.endsWith('/')) return `the ipc path must be normalized (no '//' and no trailing '/'); did you mean ${posix.normalize(path).replace(/\/+$/, '')}?`;
  const bytes = Buffer.byteLength(path, 'utf8') + LONGEST_SUFFIX.length;
  if (bytes > SUN_PATH_MAX_BYTES) {
    return `the ipc path is too long: its socket path ${path}${LONGEST_SUFFIX} would be ${bytes} bytes, Unix socket paths are limited to ${SUN_PATH_MAX_BYTES}`;
  }
  return null;
}

/** `tcp://<host>:<port>`: engines dial the handshake over TCP. */
export function handshakeProblem(addr: string): string | null {
  const want = `zmq_handshake_address must be tcp://<host>:<port>, got '${addr.length > 200 ? `${addr.slice(0, 200)}…` : addr}'`;
  if (addr.length > 300 || !addr.startsWith('tcp://')) return want;
  let u: URL;
  try {
    u = new URL(addr);
  } catch {
    return want;
  }
  const port = Number(u.port);
  if (u.hostname === '' || u.port === '' || !Number.isInteger(port) || port < 1 || port > 65535) return want;
  if (u.pathname !== '' && u.pathname !== '/') return want;
  if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '') return want;
  return null;
}
