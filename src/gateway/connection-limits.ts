/**
 * HTTP connections and the descriptors they cost. Without a cap 4,250 idle sockets were accepted
 * until the process ran out of descriptors; then every new connection was reset (the metrics port
 * too) and an engine that restarted meanwhile made libzmq abort the whole process (`Too many open
 * files (ipc_listener.cpp:297)`): the engine side must never be the one that runs out.
 *
 * - The open-files limit: Node raises the soft RLIMIT_NOFILE to the hard limit at start
 *   (node.cc, PlatformInit), so the limit read here is already the hard one.
 * - A reserve is kept for everything that is not an HTTP client: ZMQ sockets (per worker a
 *   handshake, input and output socket, one connection per engine, the context's event fds),
 *   the prompt threads, log and pid files, and the metrics and probe listeners (capped on their own).
 * - At the cap an idle connection (keep-alive between requests, or one that has sent nothing) is
 *   closed to admit the new one, oldest first; when every connection is busy the newcomer gets a
 *   503 and is closed.
 * - Timeouts (measured on Node 20 with connectionsCheckingInterval 1 s): a connection that sends
 *   nothing is closed after FIRST_BYTE_TIMEOUT_MS (Node's own timers do not cover it: a silent
 *   socket stayed open past 25 s with headersTimeout 5 s); headers must be complete
 *   HEADERS_TIMEOUT_MS after their first byte; the whole request, body included, within
 *   REQUEST_TIMEOUT_MS. An idle keep-alive connection is not affected (keepAliveTimeout, 65 s).
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../util/logger.js';
import { onClose } from './raw-response.js';

export const FIRST_BYTE_TIMEOUT_MS = 5_000;
export const HEADERS_TIMEOUT_MS = 10_000;
/** A 32 MB body (the default --max-payload-size) needs about 1.1 MB/s to make it. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node checks the header and request timeouts (its default is 30 s). */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
/** Connections each of the metrics and probe listeners may hold. */
export const SIDE_LISTENER_CONNECTIONS = 16;
/** Descriptors kept for engines, files and threads: this many at least, or this share of the limit. */
const RESERVE_MIN = 64;
const RESERVE_SHARE = 0.2;

/** The soft open-files limit (`Max open files` in /proc/self/limits), or null when unknown. */
export function openFilesLimit(limitsText?: string): number | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!m) return null;
  return m[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(m[1]);
}

/** The default --max-connections for an open-files limit: what is left after the reserve and the side listeners. */
export function defaultMaxConnections(limit: number | null): number {
  if (limit === null) return 10_000;
  const reserve = Math.max(RESERVE_MIN, Math.ceil(limit * RESERVE_SHARE));
  return Math.max(16, limit - reserve - 2 * SIDE_LISTENER_CONNECTIONS);
}

const BUSY_503 =
  'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: application/json\r\nRetry-After: 1\r\nContent-Length: ';

interface Conn {
  /** Requests on it whose response is not over yet. */
  busy: number;
  firstByte: NodeJS.Timeout | null;
}

export interface ConnectionStats {
  readonly open: number;
  /** Idle connections closed to admit new ones. */
  readonly evicted: number;
  /** Connections refused because every connection was busy. */
  readonly refused: number;
}

/**
 * Caps `server` at `max` connections and applies the timeouts above. Call before listen().
 * Returns live counters (for logs and tests).
 */
export function limitConnections(server: Server, max: number, logger?: Logger): ConnectionStats {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  const conns = new Map<Socket, Conn>();
  const stats = { open: 0, evicted: 0, refused: 0 };
  let warnedFull = false;

  const idleVictim = (): Socket | null => {
    // Insertion order: the oldest connection first.
    for (const [s, c] of conns) if (c.busy === 0) return s;
    return null;
  };

  server.on('connection', (socket: Socket) => {
    if (conns.size >= max) {
      const victim = idleVictim();
      if (victim) {
        stats.evicted++;
        drop(victim);
        victim.destroy();
      } else {
        stats.refused++;
        if (!warnedFull) {
          warnedFull = true;
          logger?.warn(`All ${max} HTTP connections are busy: new connections get 503 (raise --max-connections or the open-files limit)`);
        }
        const body = '{"error":{"message":"Too many connections; retry shortly","type":"Service Unavailable","code":"too_many_connections","param":null}}';
        socket.on('error', () => {});
        socket.end(`${BUSY_503}${Buffer.byteLength(body)}\r\n\r\n${body}`);
        socket.destroySoon?.();
        return;
      }
    }
    warnedFull = false;
    const conn: Conn = { busy: 0, firstByte: null };
    // A client that never sends a byte: Node's header timer has not started for it.
    conn.firstByte = setTimeout(() => socket.destroy(), FIRST_BYTE_TIMEOUT_MS);
    conn.firstByte.unref();
    socket.once('data', () => clearFirstByte(conn));
    conns.set(socket, conn);
    stats.open = conns.size;
    socket.once('close', () => drop(socket));
  });

  server.on('request', (req, res) => {
    const conn = conns.get(req.socket);
    if (!conn) return;
    clearFirstByte(conn);
    conn.busy++;
    // Through the response's one shared 'close' listener (raw-response.ts), not a `once` of its own.
    onClose(res, () => {
      conn.busy--;
      // Back to idle: it moves to the end of the eviction order (most recently used).
      if (conn.busy === 0 && conns.delete(req.socket)) conns.set(req.socket, conn);
    });
  });

  function clearFirstByte(conn: Conn): void {
    if (conn.firstByte) {
      clearTimeout(conn.firstByte);
      conn.firstByte = null;
    }
  }

  function drop(socket: Socket): void {
    const conn = conns.get(socket);
    if (!conn) return;
    clearFirstByte(conn);
    conns.delete(socket);
    stats.open = conns.size;
  }

  return stats;
}
