/** Local TCP port probes shared by the launcher, the demo and the mock engine's test helpers. */
import { createServer } from 'node:net';

/** True when a TCP socket can bind 127.0.0.1:<port> (always loopback, whatever --worker-host is). */
export function isPortAvailable(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

/** Ports this process was handed lately: the kernel may pick a just-closed port again. */
const recent: number[] = [];
const RECENT_MAX = 64;

function kernelPick(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A TCP port that was free a moment ago (the kernel's pick for port 0), never one this process
 * was handed among its last RECENT_MAX picks: two picks in a row (a listener and its metrics
 * port) once came back equal.
 */
export async function freeTcpPort(): Promise<number> {
  let port = await kernelPick();
  for (let tries = 0; recent.includes(port) && tries < 20; tries++) port = await kernelPick();
  recent.push(port);
  if (recent.length > RECENT_MAX) recent.shift();
  return port;
}
