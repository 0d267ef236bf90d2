/**
 * Worker ports, ipc URLs, the handshake-collision check and TokenSpeed's store port
 * (spec cli-and-api §2.4). The bind probe and the random source are injectable for tests.
 */
import { handshakePortFor } from '../engine/fnv-port.js';
import { isPortAvailable } from '../util/tcp-ports.js';
import { LaunchError } from './launch-error.js';

export { freeTcpPort, isPortAvailable } from '../util/tcp-ports.js';

const MAX_PORT = 65535;

export interface FindPortsOptions {
  readonly probe?: (port: number) => Promise<boolean>;
  /** Uniform in [0, 1), like Math.random. */
  readonly random?: () => number;
  /**
   * Further conditions on a candidate whose TCP port is free, for replica `index` (its handshake
   * port, its ipc sockets, another serve's claim; see worker-port-check.ts). A refusal steps by 1.
   */
  readonly accept?: (port: number, index: number) => Promise<boolean>;
}

/**
 * SMG's search: take a free candidate and jump a random 1–5, else step 1; give up past 65535.
 * The jump leaves room so replicas started side by side do not race for adjacent ports.
 */
export async function findWorkerPorts(base: number, count: number, opts: FindPortsOptions = {}): Promise<number[]> {
  const probe = opts.probe ?? ((p: number) => isPortAvailable(p));
  const random = opts.random ?? Math.random;
  const ports: number[] = [];
  let candidate = base;
  while (ports.length < count) {
    if (candidate > MAX_PORT) {
      throw new LaunchError(`Could not find ${count} available ports starting from ${base}`);
    }
    if ((await probe(candidate)) && (opts.accept === undefined || (await opts.accept(candidate, ports.length)))) {
      ports.push(candidate);
      candidate += 1 + Math.floor(random() * 5);
    } else {
      candidate += 1;
    }
  }
  return ports;
}

/** `$SMG_ZMQ_SOCKET_DIR`, else `/tmp/smg-zmq-<uid>`. The gateway creates it (0700) when binding. */
export function zmqSocketDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  uid: number = process.getuid?.() ?? 0,
): string {
  return env.SMG_ZMQ_SOCKET_DIR || `/tmp/smg-zmq-${uid}`;
}

export function zmqIpcUrl(workerPort: number, socketDir: string): string {
  return `ipc://${socketDir}/engine-${workerPort}`;
}

/**
 * Two replicas whose paths hash to the same handshake port would both dial one gateway socket;
 * refuse before anything is spawned, naming the first-seen URL first.
 */
export function assertNoHandshakeCollision(urls: readonly string[]): void {
  const seen = new Map<number, string>();
  for (const url of urls) {
    const port = handshakePortFor(url);
    const first = seen.get(port);
    if (first !== undefined) {
      throw new LaunchError(
        `ZMQ handshake port collision on ${port}: ${first} and ${url} derive the same port. ` +
          'Adjust --worker-base-port so the worker ipc paths differ.',
      );
    }
    seen.set(port, url);
  }
}

/**
 * TokenSpeed's store port for `--dist-init-addr`: worker port + 233 (reflected below the u16
 * ceiling), hopped out of the 20000–29999 handshake band so it never meets a handshake port.
 */
export function distInitPort(workerPort: number): number {
  let dist = workerPort + 233 <= MAX_PORT ? workerPort + 233 : workerPort - 233;
  if (dist >= 20000 && dist < 30000) dist += 10000;
  return dist;
}
