import type { Logger } from '../util/logger.js';
import type { WorkersConfig } from './types.js';

/** A worker spec the registration step refuses; the message is what the user sees. */
export class RegistrationError extends Error {
  override name = 'RegistrationError';
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
