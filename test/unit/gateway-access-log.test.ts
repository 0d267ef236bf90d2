/**
 * The access log (gateway/middleware/access-log.ts) over the real app with `app.request()`: one
 * info line per request once its body has ended, with the error's code and message for 4xx/5xx,
 * the request id, the body only with --log-requests (cut to --max-log-len), probes at debug, and
 * nothing with --disable-access-log.
 */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

function setup(over: Partial<GatewayConfig> = {}, level = 'info') {
  const cap = captureLogger(level);
  const ctx = createGatewayContext({ ...defaultGatewayConfig(), modelPath: 'm', ...over }, { logger: cap.logger, connect: new FakeConnector().connect });
  return { app: buildApp(ctx), cap };
}

async function lineFor(cap: ReturnType<typeof captureLogger>, text: string): Promise<string> {
  const end = Date.now() + 2000;
  for (;;) {
    const [line] = cap.find(text);
    if (line !== undefined) return line;
    if (Date.now() > end) throw new Error(`no log line with ${text}:\n${cap.lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('access log', () => {
  it('a 200: method, path, status, latency and the request id, at info', async () => {
    const { app, cap } = setup();
    const res = await app.request('/workers', { headers: { 'x-request-id': 'req-abc' } });
    expect(res.status).toBe(200);
    await res.text();
    const line = await lineFor(cap, 'GET /workers 200');
    expect(line).toMatch(/ INFO  GET \/workers 200 \d+ms request_id=req-abc$/);
  });

  it('a 4xx: the error code and message from the OpenAI envelope; the body only with --log-requests, cut to --max-log-len', async () => {
    const { app, cap } = setup({ logRequests: true, maxLogLen: 12 });
    const body = JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'hello there' }] });
    const res = await app.request('/v1/chat/completions', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    await res.text();
    const line = await lineFor(cap, 'POST /v1/chat/completions');
    expect(line).toContain(` ${res.status} `);
    expect(res.status).toBeGreaterThanOrEqual(400);
    const envelope = (await (await app.request('/v1/chat/completions', { method: 'POST', body })).json()) as { error: { code: string; message: string } };
    expect(line).toContain(`error_code=${envelope.error.code}`);
    expect(line).toContain(`error=${envelope.error.message}`);
    expect(line).toContain(`body=${body.slice(0, 12)}… [${body.length} bytes]`);
  });

  it('without --log-requests no body; an Anthropic-path error reads its own envelope', async () => {
    const { app, cap } = setup();
    const res = await app.request('/v1/messages', { method: 'POST', body: '{not json', headers: { 'content-type': 'application/json' } });
    const answer = (await res.json()) as { error: { message: string } };
    const line = await lineFor(cap, 'POST /v1/messages');
    expect(line).toContain(`error=${answer.error.message}`);
    expect(line).not.toContain('body=');
  });

  it('probes log at debug only; --disable-access-log logs nothing', async () => {
    const info = setup();
    await (await info.app.request('/liveness')).text();
    await (await info.app.request('/workers')).text();
    await lineFor(info.cap, 'GET /workers 200');
    expect(info.cap.find('GET /liveness')).toEqual([]);
    const debug = setup({}, 'debug');
    await (await debug.app.request('/liveness')).text();
    expect(await lineFor(debug.cap, 'GET /liveness 200')).toContain('DEBUG');

    const off = setup({ disableAccessLog: true });
    await (await off.app.request('/workers')).text();
    await new Promise((r) => setTimeout(r, 50));
    expect(off.cap.find('/workers')).toEqual([]);
  });
});
