/**
 * A real PostgreSQL for the tests on any machine: PGlite (PostgreSQL compiled to WASM) spoken to
 * over the PostgreSQL wire protocol on a free TCP port, in the test process. Nothing to install
 * beyond the devDependency.
 *
 * One PGlite is one PostgreSQL backend, so several client connections must take turns.
 * @electric-sql/pglite-socket's server does not fit: by default it refuses a second client ("Too
 * many connections"), and with `maxConnections` > 1 it interleaves the clients message by message,
 * so one pool connection's Parse/Bind/Execute lands between another's and fails with "unnamed
 * prepared statement does not exist" under concurrent load (measured with two gateways of four
 * connections each). This server gives the backend to one connection for a whole cycle instead:
 * from its first message until the backend answers ReadyForQuery with status idle ('I'), so a
 * statement's extended-protocol messages, and a transaction from BEGIN to COMMIT, run alone.
 * Other connections wait their turn, as they would wait on locks in a real server.
 *
 * `stop()` closes the listener and every client connection (an outage: gateways see their
 * connections drop and new ones refused); `start()` listens again on the same port with the same
 * data (the database came back).
 */
import { type Server, type Socket, createServer } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { freeTcpPort } from '../../../src/mock-engine/spawn.js';

export interface PgServer {
  /** postgres://postgres:postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** Closes the listener and drops every client; the data stays. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Stops and discards the database. */
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/** A FIFO lock: `acquire()` resolves with the release function once every earlier holder released. */
class TurnLock {
  private tail: Promise<void> = Promise.resolve();
  acquire(): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => mine);
    return ready;
  }
}

/** The backend's answer ends with ReadyForQuery 'I': no statement or transaction is open. */
function endsIdle(out: Uint8Array): boolean {
  const n = out.length;
  return n >= 6 && out[n - 6] === 0x5a && out[n - 5] === 0 && out[n - 4] === 0 && out[n - 3] === 0 && out[n - 2] === 5 && out[n - 1] === 0x49;
}

const TRACE = process.env.PGLITE_TRACE === '1';
let nextConn = 0;
const trace = (id: number, what: string) => {
  if (TRACE) process.stderr.write(`[pglite ${Date.now() % 100000} c${id}] ${what}\n`);
};

function serveClient(db: PGlite, lock: TurnLock, socket: Socket): void {
  const cid = ++nextConn;
  socket.setNoDelay(true);
  let buf = Buffer.alloc(0);
  let started = false;
  let release: (() => void) | null = null;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;

  const run = async (msg: Uint8Array) => {
    if (closed) return;
    if (!release) {
      trace(cid, 'wait');
      release = await lock.acquire();
      trace(cid, 'acquired');
    }
    if (closed) return;
    trace(cid, `run ${String.fromCharCode(msg[0])} ${msg.length}`);
    const out = await db.runExclusive(() => db.execProtocolRaw(msg));
    trace(cid, `done ${out.length} idle=${endsIdle(out)}`);
    if (!socket.destroyed && out.length > 0) socket.write(out);
    if (endsIdle(out)) {
      release();
      release = null;
    }
  };
  const finish = async () => {
    // A client gone mid-turn: end the extended-protocol cycle it left open (Sync), roll back its
    // transaction, then let the others go on.
    if (release) {
      await db.runExclusive(() => db.execProtocolRaw(SYNC)).catch(() => {});
      // exec takes PGlite's own lock: not inside runExclusive, which holds it.
      if (db.isInTransaction()) await db.exec('ROLLBACK').catch(() => {});
      release();
      release = null;
    }
  };

  socket.on('data', (data) => {
    buf = Buffer.concat([buf, data]);
    for (;;) {
      if (!started) {
        if (buf.length < 8) return;
        const len = buf.readInt32BE(0);
        if (buf.length < len) return;
        const code = buf.readInt32BE(4);
        const msg = buf.subarray(0, len);
        buf = buf.subarray(len);
        if (code === SSL_REQUEST) socket.write('N');
        else if (code !== CANCEL_REQUEST) {
          started = true;
          const copy = new Uint8Array(msg);
          chain = chain.then(() => run(copy));
        }
        continue;
      }
      if (buf.length < 5) return;
      const total = 1 + buf.readInt32BE(1);
      if (buf.length < total) return;
      const msg = new Uint8Array(buf.subarray(0, total));
      buf = buf.subarray(total);
      if (msg[0] === 0x58) {
        // Terminate
        socket.end();
        return;
      }
      chain = chain.then(() => run(msg)).catch(() => {
        socket.destroy();
      });
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    trace(cid, 'close');
    closed = true;
    chain = chain.then(finish, finish);
  });
}

export async function startPgServer(): Promise<PgServer> {
  const db = await PGlite.create();
  const port = await freeTcpPort();
  const lock = new TurnLock();
  let server: Server | null = null;
  const sockets = new Set<Socket>();

  const start = async () => {
    if (server) return;
    const s = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      serveClient(db, lock, socket);
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = null;
    if (!s) return;
    const closed = new Promise<void>((r) => s.close(() => r()));
    for (const sock of sockets) sock.destroy();
    await closed;
  };
  await start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    close: async () => {
      await stop();
      await db.close();
    },
  };
}
