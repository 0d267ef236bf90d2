import type { Logger } from '../util/logger.js';
import type { WorkersConfig } from './types.js';

/** A worker spec the registration step refuses; the message is what the user sees. */
export class RegistrationError extends Error {
  override name = 'RegistrationError';
}

/**
 * Why a worker with several ranks cannot be expanded per rank under --dp-aware: SMG's text for a
 * grouped ZMQ worker, ours for an HTTP one. The workers API answers it before its 202
 * (api-checks.ts); registration refuses startup workers with it.
 */
export function dpAwareRefusal(url: string, dpSize: number, http: boolean): string {
  return http
    ? `HTTP worker ${url} cannot be dp-aware expanded (dp_size=${dpSize}): register one URL per rank instead`
    : `ZMQ worker ${url} cannot be dp-aware expanded (dp_size=${dpSize}); configure a grouped ZMQ worker (\`dp_size\` on the worker spec) instead`;
}

/** What the registration step reads from the registry. */
export interface RegistrationEnv {
  config: WorkersConfig;
  logger: Logger;
  /** create: a worker at this URL already exists. Update paths pass a function returning false. */
  urlTaken(url: string): boolean;
  /** Registered ZMQ workers, for the handshake-address claim check. */
  zmqPeers(): Iterable<{ url: string; handshakeAddress: string }>;
}
