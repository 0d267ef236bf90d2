/**
 * A response whose writer frames its own HTTP chunks (RawResponse.chunkSelf + FrameBytes.take(true))
 * puts exactly the bytes on the wire that Node's chunked encoding puts there for the same writes:
 * head, chunks, last chunk, and the keep-alive connection serving the next request. HTTP/1.0 (no
 * chunked body) is left to Node. Once the head is out, such chunks go to the socket itself, and
 * backpressure still ends in the response's drain.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameBytes } from '../../src/api/frame-bytes.js';
import { rawResponse } from '../../src/gateway/raw-response.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const FRAMES = ['data: {"a":1}\n\n', 'data: {"b":"héllo 世界 🎉"}\n\n', `data: ${'x'.repeat(5000)}\n\n`, 'data: [DONE]\n\n'];

/** Writes FRAMES in three writes and an end, framed by the writer or by Node. */
async function serve(self: boolean, endWithData: boolean): Promise<number> {
  const server = http.createServer((req, res) => {
    res.sendDate = false;
    const raw = rawResponse(res);
    raw.writeHead(200, { 'Content-Type': 'text/event-stream', 'x-request-id': req.url ?? '' });
    const chunked = self ? raw.chunkSelf!() : false;
    const pending = new FrameBytes();
    for (const f of FRAMES.slice(0, 3)) {
      pending.append(f);
      raw.write(pending.take(chunked));
    }
    if (endWithData) {
      pending.append(FRAMES[3]);
      raw.end(pending.take(chunked));
    } else {
      pending.append(FRAMES[3]);
      raw.write(pending.take(chunked));
      raw.end();
    }
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** Two requests on one connection (the second after the first response ended); everything the server sent. */
function exchange(port: number, version = '1.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    let sentSecond = version !== '1.1';
    const req = (path: string) => `POST ${path} HTTP/${version}\r\nHost: x\r\nContent-Length: 0\r\n\r\n`;
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => {
      got += d;
      if (!sentSecond && got.includes('0\r\n\r\n')) {
        sentSecond = true;
        sock.write(req('/second'));
      }
      if (version === '1.1' && got.split('0\r\n\r\n').length === 3) sock.end();
    });
    sock.on('end', () => resolve(got));
    sock.on('error', reject);
    sock.write(req('/first'));
  });
}

/** The body of the first chunked response in `s` (latin1 text of the wire bytes), decoded. */
function dechunk(s: string): string {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = s.indexOf('\r\n', at);
    const size = parseInt(s.slice(at, eol), 16);
    if (size === 0) break;
    parts.push(Buffer.from(s.slice(eol + 2, eol + 2 + size), 'latin1'));
    expect(s.slice(eol + 2 + size, eol + 4 + size)).toBe('\r\n');
    at = eol + 4 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

describe('RawResponse.chunkSelf: chunks framed by the writer', () => {
  it('puts the same bytes on the wire as Node framing the same writes, and the connection serves the next request', async () => {
    for (const endWithData of [true, false]) {
      const [mine, node] = await Promise.all([serve(true, endWithData), serve(false, endWithData)]);
      const [a, b] = await Promise.all([exchange(mine), exchange(node)]);
      expect(a).toBe(b);
      // Two whole responses, each chunked and ended.
      expect(a.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
      expect(a).toMatch(/Transfer-Encoding: chunked/);
      expect(a.endsWith('0\r\n\r\n')).toBe(true);
      expect(dechunk(a.slice(a.indexOf('\r\n\r\n') + 4))).toBe(FRAMES.join(''));
    }
  });

  it('an HTTP/1.0 request has no chunked body: chunkSelf declines and Node writes the bytes as they are', async () => {
    const [mine, node] = await Promise.all([serve(true, true), serve(false, true)]);
    const [a, b] = await Promise.all([exchange(mine, '1.0'), exchange(node, '1.0')]);
    expect(a).toBe(b);
    expect(a).not.toMatch(/Transfer-Encoding/);
    expect(Buffer.from(a.slice(a.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8')).toBe(FRAMES.join(''));
  });
});

describe('RawResponse.write of self-framed chunks after the head: straight to the socket', () => {
  it("a reader that stops makes write return false, and the response's drain comes when it reads again; every byte arrives in order", async () => {
    const CHUNK = 64 * 1024;
    const COUNT = 64;
    let direct = 0;
    let refused = 0;
    let drained = 0;
    const server = http.createServer((_req, res) => {
      const raw = rawResponse(res);
      raw.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const chunked = raw.chunkSelf!();
      const pending = new FrameBytes();
      // Node's own path writes to a socket it corked first (OutgoingMessage#cork); the direct one does not.
      const socket = res.socket!;
      const write = socket.write.bind(socket) as (b: Buffer) => boolean;
      socket.write = ((b: Buffer) => {
        if (socket.writableCorked === 0) direct += 1;
        return write(b);
      }) as typeof socket.write;
      let i = 0;
      const pump = () => {
        while (i < COUNT) {
          pending.append(`data: ${String(i).padStart(6, '0')}${'y'.repeat(CHUNK)}\n\n`);
          const ok = raw.write(pending.take(chunked));
          i += 1;
          if (!ok) {
            refused += 1;
            return;
          }
        }
        raw.end();
      };
      raw.onDrain(() => {
        drained += 1;
        pump();
      });
      pump();
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const body = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(port, '127.0.0.1');
      const parts: Buffer[] = [];
      sock.pause();
      // The reader stalls until the server has run into the socket's limit, then reads it all.
      setTimeout(() => sock.resume(), 200);
      sock.on('data', (d: Buffer) => {
        parts.push(d);
        if (Buffer.concat(parts).toString('latin1').endsWith('0\r\n\r\n')) sock.end();
      });
      sock.on('end', () => resolve(Buffer.concat(parts).toString('latin1')));
      sock.on('error', reject);
      sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    // The head left with the first write (Node's path); every later chunk went to the socket itself.
    expect(direct).toBe(COUNT - 1);
    expect(refused).toBeGreaterThan(0);
    expect(drained).toBe(refused);
    const text = dechunk(body.slice(body.indexOf('\r\n\r\n') + 4));
    const seen = [...text.matchAll(/data: (\d{6})/g)].map((m) => Number(m[1]));
    expect(seen).toEqual(Array.from({ length: COUNT }, (_, k) => k));
  });
});
