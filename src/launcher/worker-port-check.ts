/**
 * What makes a worker port usable for `smg serve` beyond SMG's TCP bind probe (spec cli-and-api
 * §2.4). In zmq mode vLLM never binds the worker port, so two serves with default flags both find
 * 31000 "free" and would share `engine-31000` and its handshake port. A candidate is therefore
 * also refused when
 * - another live serve claims it (its pid file, worker-claims.ts),
 * - its handshake port is taken on loopback (another gateway, or anything else),
 * - something listens on its ipc sockets (a gateway started with `smg launch`),
 * - for TokenSpeed, its store port (`--dist-init-addr`, worker port + 233) is taken.
 * With claims (a real start) the port is then claimed atomically; a dry run only looks.
 */
import { handshakePortFor, ipcPathOf } from '../engine/fnv-port.js';
import { checkUnixSocket } from '../engine/live-socket.js';
import { isPortAvailable } from '../util/tcp-ports.js';
import { isRunning } from './process-identity.js';
import { distInitPort, zmqIpcUrl } from './ports.js';
import { claimFilePath, readClaim, type WorkerClaims } from './worker-claims.js';

export interface WorkerPortCheckOptions {
  readonly socketDir: string;
  /** Where to claim accepted ports; absent for `--dry-run`, which starts nothing. */
  readonly claims?: WorkerClaims;
  readonly probeTcp?: (port: number) => Promise<boolean>;
  /** TokenSpeed binds a store port next to its worker port; vLLM binds nothing there. */
  readonly backend?: 'vllm' | 'tokenspeed';
}

async function socketIsLive(path: string): Promise<boolean> {
  try {
    return (await checkUnixSocket(path)) === 'live';
  } catch {
    // Unreadable (EACCES…): not ours to take.
    return true;
  }
}

export function workerPortCheck(opts: WorkerPortCheckOptions): (port: number, index: number) => Promise<boolean> {
  const probeTcp = opts.probeTcp ?? ((p: number) => isPortAvailable(p));
  return async (port, index) => {
    const url = zmqIpcUrl(port, opts.socketDir);
    const handshakePort = handshakePortFor(url);
    const claimed = readClaim(claimFilePath(opts.socketDir, port));
    if (claimed !== null && isRunning(claimed.serve)) return false;
    if (!(await probeTcp(handshakePort))) return false;
    if (opts.backend === 'tokenspeed' && !(await probeTcp(distInitPort(port)))) return false;
    const base = ipcPathOf(url);
    if ((await socketIsLive(`${base}-in.sock`)) || (await socketIsLive(`${base}-out.sock`))) return false;
    return opts.claims === undefined || opts.claims.claim(port, url, handshakePort, `engine-${index}`);
  };
}
