/**
 * The SSE frames the http-ceiling server replays: captured once from a real gateway response (so
 * the ceiling writes byte-for-byte what the gateway writes), or built the same way when no gateway
 * runs (role chunk, one content chunk per token, finish chunk, usage chunk, `[DONE]`).
 */
import http from 'node:http';

export interface SseFrames {
  /** Frames before the first token (the role chunk), each ending in "\n\n". */
  head: string[];
  /** One frame per generated token; a response of N tokens uses tokens[i % length] for i < N. */
  tokens: string[];
  /** Frames after the last token: finish chunk, usage chunk (its counts rewritten per response), [DONE]. */
  tail: string[];
  /** Response headers to send (content-type, cache-control, …). */
  headers: Record<string, string>;
  source: 'captured from the gateway' | 'synthesized';
}

/**
 * A frame that carries generated text: `"content":"…"` or `"reasoning_content":"…"` (the role and
 * finish chunks carry `null` there, and quotes inside JSON strings are escaped, so no false hit).
 */
export function isTokenFrame(frame: string): boolean {
  return frame.includes('content":"');
}

/** Splits a whole SSE response body into head / per-token / tail frames. */
export function splitFrames(body: string, headers: Record<string, string>): SseFrames {
  const frames = body
    .split('\n\n')
    .filter((f) => f.length > 0)
    .map((f) => `${f}\n\n`);
  const first = frames.findIndex(isTokenFrame);
  let last = -1;
  for (let i = frames.length - 1; i >= 0; i--) {
    if (isTokenFrame(frames[i])) {
      last = i;
      break;
    }
  }
  if (first < 0) throw new Error(`captured response has no token frame: ${body.slice(0, 300)}`);
  const tokens = frames.slice(first, last + 1);
  if (!tokens.every(isTokenFrame)) throw new Error('captured response interleaves token and non-token frames');
  return { head: frames.slice(0, first), tokens, tail: frames.slice(last + 1), headers, source: 'captured from the gateway' };
}

/** The usage frame with `completion_tokens` set to `n` (and total_tokens to match). */
export function withCompletionTokens(frame: string, n: number): string {
  const prompt = /"prompt_tokens":(\d+)/.exec(frame);
  let out = frame.replace(/"completion_tokens":\d+/, `"completion_tokens":${n}`);
  if (prompt) out = out.replace(/"total_tokens":\d+/, `"total_tokens":${Number(prompt[1]) + n}`);
  return out;
}

/** Headers worth replaying (not the per-connection or per-response ones node sets itself). */
const KEEP_HEADERS = new Set(['content-type', 'cache-control', 'x-request-id']);

/** One streaming request to the gateway; the raw body split into frames. */
export function captureFrames(host: string, port: number, body: Buffer): Promise<SseFrames> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host,
        port,
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), accept: 'text/event-stream' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('error', reject);
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`capture: HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (KEEP_HEADERS.has(k) && typeof v === 'string') headers[k] = v;
          try {
            resolve(splitFrames(text, headers));
          } catch (err) {
            reject(err as Error);
          }
        });
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('capture: timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** The gateway's chunk shape, for runs without a gateway to capture from. */
export function synthesizeFrames(model: string, texts: readonly string[], promptTokens: number): SseFrames {
  const id = 'chatcmpl-bench00000000000000000000';
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'default',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  const usage = `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'default',
    choices: [],
    usage: { prompt_tokens: promptTokens, completion_tokens: texts.length, total_tokens: promptTokens + texts.length },
  })}\n\n`;
  return {
    head: [chunk({ role: 'assistant', content: null }, null)],
    tokens: texts.map((t) => chunk({ content: t }, null)),
    tail: [chunk({}, 'length'), usage, 'data: [DONE]\n\n'],
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': id },
    source: 'synthesized',
  };
}
