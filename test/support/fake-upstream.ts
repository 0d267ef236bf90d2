/**
 * An OpenAI-compatible upstream on a real socket, for the forwarder's tests: it answers /health
 * and /v1/models like vLLM or `smg serve`, records every request it gets, and behaves as told —
 * answer with its name, fail with a status and an error body, hold the request open (to build
 * in-flight load and to see a client disconnect arrive), or stream SSE frames.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type UpstreamMode = { kind: 'ok' } | { kind: 'status'; status: number } | { kind: 'hold' } | { kind: 'sse'; frames: string[] };

export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export class FakeUpstream {
  mode: UpstreamMode = { kind: 'ok' };
  healthStatus = 200;
  readonly seen: SeenRequest[] = [];
  /** Held requests whose client went away before the upstream answered. */
  abandoned = 0;
  /** Drop the connection of the next request that arrives on an already used keep-alive socket. */
  resetReusedOnce = false;
  private readonly used = new WeakSet<object>();
  private readonly held = new Set<ServerResponse>();
  private server: Server | null = null;
  url = '';

  constructor(
    readonly name: string,
    readonly model = 'up-model',
  ) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const a = this.server.address();
    this.url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  }

  /** Answers every held request (200, its name). */
  releaseHeld(): void {
    for (const res of this.held) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ served_by: this.name }));
    this.held.clear();
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(this.healthStatus).end();
      return;
    }
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: this.model, object: 'model', created: 1700000000, owned_by: 'vllm', root: `/models/${this.model}`, max_model_len: 2048 }] }));
      return;
    }
    this.seen.push({ path: req.url ?? '', headers: req.headers, body });
    const reused = this.used.has(req.socket);
    this.used.add(req.socket);
    if (reused && this.resetReusedOnce) {
      // What a restarted or idle-timing worker does to a kept-alive connection.
      this.resetReusedOnce = false;
      req.socket.destroy();
      return;
    }
    const mode = this.mode;
    switch (mode.kind) {
      case 'ok':
        res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': this.name });
        res.end(JSON.stringify({ served_by: this.name, path: req.url, body: JSON.parse(body || 'null') as unknown }));
        return;
      case 'status':
        res.writeHead(mode.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `${this.name} says ${mode.status}`, type: 'upstream_error', code: mode.status } }));
        return;
      case 'hold':
        this.held.add(res);
        res.on('close', () => {
          if (!res.writableFinished) this.abandoned += 1;
          this.held.delete(res);
        });
        return;
      case 'sse':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const f of mode.frames) res.write(f);
        res.end();
        return;
    }
  }
}
