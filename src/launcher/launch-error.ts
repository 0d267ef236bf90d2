/**
 * Failures the launcher reports to the user. The CLI prints `message` and exits with `exitCode`;
 * the texts are part of the contract (spec cli-and-api §2.3), so callers never reword them.
 */

/** A command-line mistake found while parsing: argparse-style, exit 2, nothing has started yet. */
export interface UsageError {
  readonly message: string;
  readonly exitCode: 2;
}

export function usageError(message: string): UsageError {
  return { message, exitCode: 2 };
}

/**
 * A launch-time failure (ports, handshake collision, GPU pool): SMG raises these as uncaught
 * exceptions, so they exit 1. Thrown rather than returned because they surface from deep helpers
 * and the serve command has one place that turns them into an exit code.
 */
export class LaunchError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'LaunchError';
    this.exitCode = exitCode;
  }
}
