/**
 * A real PostgreSQL for the tests on any machine: PGlite (PostgreSQL compiled to WASM) behind
 * pglite-socket's wire-protocol server, in the test process, on a free TCP port. Nothing to
 * install beyond the devDependencies.
 *
 * One PGlite is one PostgreSQL backend: pglite-socket's server refuses a second client by default
 * (`maxConnections` 1: "Too many connections"). With `maxConnections` > 1 it multiplexes the
 * clients onto that backend, one message at a time, and keeps a client that is inside a
 * transaction alone until it commits or rolls back — enough for pools of a few connections from
 * several gateways. `stop()` closes the listener and every client connection (an outage: the
 * gateways see their connections drop and new ones refused); `start()` listens again on the same
 * port with the same data (the database came back).
 */
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
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

export async function startPgServer(opts: { maxConnections?: number } = {}): Promise<PgServer> {
  const db = await PGlite.create();
  const port = await freeTcpPort();
  const maxConnections = opts.maxConnections ?? 32;
  let server: PGLiteSocketServer | null = null;
  const start = async () => {
    if (server) return;
    const s = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections });
    await s.start();
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = null;
    await s?.stop();
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
