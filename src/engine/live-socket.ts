/**
 * Is anything listening on the unix socket at `path`? ZeroMQ ipc endpoints are plain unix stream
 * sockets, so a bare connect answers: ECONNREFUSED means nobody accepts there any more (a file a
 * crashed process left behind), a completed connect means a live listener. The connection is
 * dropped at once, before any ZMTP greeting; a ZeroMQ listener counts it as a failed handshake
 * (which our own engine client ignores, see peer-tracker.ts).
 */
import { connect } from 'node:net';

export type UnixSocketState = 'live' | 'stale' | 'missing';

/** A refused or failed check that says nothing about liveness (EACCES, ENOTSOCK…). */
export class SocketCheckError extends Error {
  override name = 'SocketCheckError';
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** One connect attempt. A full accept backlog (EAGAIN) or no answer in time is a busy listener: live. */
export function checkUnixSocket(path: string, timeoutMs = 1000): Promise<UnixSocketState> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    const timer = setTimeout(() => done('live'), timeoutMs);
    timer.unref();
    function done(state: UnixSocketState | Error): void {
      clearTimeout(timer);
      sock.destroy();
      if (state instanceof Error) reject(state);
      else resolve(state);
    }
    sock.once('connect', () => done('live'));
    sock.once('error', (err: NodeJS.ErrnoException) => {
      switch (err.code) {
        case 'ECONNREFUSED':
        // The listener closed while our connect sat in its backlog: it is going away.
        case 'ECONNRESET':
          return done('stale');
        case 'ENOENT':
          return done('missing');
        case 'EAGAIN':
          return done('live');
        default:
          return done(new SocketCheckError(err.message, err.code));
      }
    });
  });
}

/**
 * Live only if every one of `attempts` checks, `gapMs` apart, finds a listener. A socket this
 * process closed a moment ago can still accept until libzmq's I/O thread has released it; a
 * genuinely live one keeps accepting.
 */
export async function isLiveUnixSocket(path: string, attempts = 5, gapMs = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, gapMs));
    if ((await checkUnixSocket(path)) !== 'live') return false;
  }
  return true;
}
