/**
 * The http-ceiling target: a bare node:http server, in its own process like the gateway, that
 * answers POST /v1/chat/completions with the SSE frames the gateway sends for the same request
 * (sse-frames.ts), one `res.write` per frame, as fast as it can. Nothing else: no engine, no
 * template, no tokenizer, no detokenizer. Its tokens/s is what the gateway could reach if all of
 * its own work cost nothing.
 *
 * --mode step (the bench's default): each event-loop turn (setImmediate) writes the next token frame
 * of every stream, so concurrent streams interleave frame by frame, as for a gateway fed one token
 * per engine step; with --step-ms S a step runs every S ms (a paced engine, for the long-prompt
 * scenario). --mode burst: each response's frames go out back to back as soon as its request is
 * read, one res.write per frame, until the socket pushes back ('drain' resumes it). A request to
 * /v1/chat/completions?mode=burst is answered in burst mode whatever --mode says (the bench's
 * short requests: issue 30 compares CPU per short request with the burst ceiling).
 *
 *   node [--import loop-probe.mjs] --import tsx/esm ceiling-server.ts --port P --frames FILE
 *        [--step-ms S] [--mode step|burst]
 *
 * FILE is JSON `SseFrames`. Prints `ceiling listening on <port>` once bound.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { withCompletionTokens, type SseFrames } from './sse-frames.js';

const { values } = parseArgs({
  options: { port: { type: 'string' }, frames: { type: 'string' }, 'step-ms': { type: 'string' }, mode: { type: 'string' }, framing: { type: 'string' } },
  strict: true,
});
if (!values.port || !values.frames) {
  process.stderr.write('usage: ceiling-server.ts --port P --frames FILE\n');
  process.exit(2);
}
const frames = JSON.parse(readFileSync(values.frames, 'utf8')) as SseFrames;
const tokenFrames = frames.tokens;
const stepMs = Number(values['step-ms'] ?? 0);
const mode = values.mode ?? 'burst';
if (mode !== 'step' && mode !== 'burst') throw new Error(`--mode: step or burst, got '${mode}'`);
const framesPerStepOf = (m: string) => (m === 'burst' ? Infinity : 1);
const framesPerStep = framesPerStepOf(mode);
/**
 * --framing self (an experiment, step mode): the chunk framing is written by this server (one
 * Buffer per frame, `<hex>\r\n<frame>\r\n`, prebuilt), with chunkedEncoding turned off after the
 * head, and each write corked so it leaves at once: what a write costs without Node's own framing.
 */
const selfFraming = values.framing === 'self';
/** --framing corked (an experiment): Node's framing, but each write corked as the gateway does. */
const corked = values.framing === 'corked';
const framedTokens = tokenFrames.map((f) => {
  const b = Buffer.from(f);
  return Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
});
const framedHead = frames.head.map((f) => {
  const b = Buffer.from(f);
  return Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
});

/** Tail frames with the usage counts of an N-token response (only a few distinct N per run). */
const tails = new Map<number, string[]>();
function tailFor(n: number): string[] {
  let t = tails.get(n);
  if (!t) {
    t = frames.tail.map((f) => (f.includes('"usage":') ? withCompletionTokens(f, n) : f));
    tails.set(n, t);
  }
  return t;
}

interface Stream {
  res: http.ServerResponse;
  /** Tokens to send. */
  n: number;
  /** Token frames sent so far. */
  sent: number;
  paused: boolean;
  done: boolean;
  /** Token frames per step: 1 (step mode) or all of them (burst). */
  perStep: number;
}

const active: Stream[] = [];
let scheduled = false;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  if (stepMs > 0) setTimeout(step, stepMs);
  else setImmediate(step);
}

/**
 * One write per frame: up to `framesPerStep` token frames (all of them in burst mode, until the
 * socket pushes back); the role frame goes with the first token, the tail with the last.
 */
function advance(s: Stream): void {
  const res = s.res;
  if (selfFraming && s.sent > 0 && s.sent < s.n - 1) {
    res.cork();
    const ok = res.write(framedTokens[s.sent % framedTokens.length]);
    res.uncork();
    s.sent += 1;
    if (!ok) {
      s.paused = true;
      res.once('drain', () => {
        s.paused = false;
        schedule();
      });
    }
    return;
  }
  if (selfFraming && s.sent === 0) {
    // The head, with the first frames framed by hand.
    res.cork();
    for (const f of framedHead) res.write(f);
    res.write(framedTokens[0]);
    res.uncork();
    s.sent = 1;
    return;
  }
  if (selfFraming) {
    // Back to Node's framing for the last frames and the end.
    (res as unknown as { chunkedEncoding: boolean }).chunkedEncoding = true;
  }
  if (s.sent === 0) for (const f of frames.head) res.write(f);
  let ok = true;
  for (let k = 0; k < s.perStep && ok && s.sent < s.n; k++) {
    if (corked) res.cork();
    ok = res.write(tokenFrames[s.sent % tokenFrames.length]);
    if (corked) res.uncork();
    s.sent += 1;
  }
  if (s.sent >= s.n) {
    for (const f of tailFor(s.n)) res.write(f);
    res.end();
    s.done = true;
  } else if (!ok) {
    s.paused = true;
    res.once('drain', () => {
      s.paused = false;
      schedule();
    });
  }
}

function step(): void {
  scheduled = false;
  let kept = 0;
  let runnable = false;
  for (let i = 0; i < active.length; i++) {
    const s = active[i];
    if (!s.done && !s.paused) advance(s);
    if (s.done) continue;
    active[kept++] = s;
    if (!s.paused) runnable = true;
  }
  active.length = kept;
  if (runnable) schedule();
}

function start(res: http.ServerResponse, maxTokens: number, perStep: number): void {
  res.writeHead(200, frames.headers);
  if (selfFraming && perStep === 1) (res as unknown as { chunkedEncoding: boolean }).chunkedEncoding = false;
  const s: Stream = { res, n: maxTokens, sent: 0, paused: false, done: false, perStep };
  res.once('close', () => {
    s.done = true; // client went away (or we ended): drop it on the next step
  });
  active.push(s);
  schedule();
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/readiness') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ready"}');
    return;
  }
  const burst = req.url === '/v1/chat/completions?mode=burst';
  if (req.method !== 'POST' || (req.url !== '/v1/chat/completions' && !burst)) {
    res.writeHead(404);
    res.end();
    return;
  }
  const parts: Buffer[] = [];
  req.on('data', (d: Buffer) => parts.push(d));
  req.on('end', () => {
    let maxTokens: number;
    try {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { max_tokens?: unknown };
      maxTokens = typeof body.max_tokens === 'number' && body.max_tokens >= 1 ? Math.floor(body.max_tokens) : 16;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"invalid JSON body"}}');
      return;
    }
    start(res, maxTokens, burst ? framesPerStepOf('burst') : framesPerStep);
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
// The gateway's accept queue (src/gateway/server.ts LISTEN_BACKLOG), not Node's 511: with 511 a
// burst of 1,000 new connections overflowed it now and then (218 SYNs dropped in one burst, each
// retried after 1 s), and the ceiling's TTFT then measured the kernel's retry, not the server.
server.listen({ port: Number(values.port), host: '127.0.0.1', backlog: 8192 }, () => {
  process.stderr.write(`ceiling listening on ${values.port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
