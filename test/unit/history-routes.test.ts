// The stored-state routes through the app (app.request, no socket): OpenAI's error envelope for
// every refusal, the Conversations checks SMG makes, list parameters, and --history-backend none.
import { describe, expect, it } from 'vitest';
import { apiDeps } from '../../src/api/handlers.js';
import { buildApp } from '../../src/gateway/app.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { createGatewayContext } from '../../src/gateway/context.js';
import { FakeConnector } from '../support/fake-engine.js';
import { captureLogger } from '../support/log-capture.js';

function app(over: Partial<GatewayConfig> = {}) {
  const ctx = createGatewayContext({ ...defaultGatewayConfig(), modelPath: 'm', ...over }, { logger: captureLogger().logger, connect: new FakeConnector().connect, deps: apiDeps() });
  return buildApp(ctx);
}

async function call(a: ReturnType<typeof app>, method: string, path: string, body?: unknown) {
  const res = await a.request(path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('--history-backend none', () => {
  const a = app({ historyBackend: 'none' });

  it('the stored-state routes are a 400 that names the flag', async () => {
    for (const [method, path] of [
      ['POST', '/v1/conversations'],
      ['GET', '/v1/conversations/conv_1/items'],
      ['GET', '/v1/responses/resp_1'],
      ['GET', '/v1/responses/resp_1/input_items'],
    ]) {
      const r = await call(a, method, path, method === 'POST' ? {} : undefined);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('history_disabled');
      expect(r.body.error.message).toContain('--history-backend none');
    }
  });

  it('previous_response_id, conversation and item_reference are refused before any generation', async () => {
    for (const body of [
      { input: 'hi', previous_response_id: 'resp_1' },
      { input: 'hi', conversation: 'conv_1' },
      { input: [{ type: 'item_reference', id: 'msg_1' }] },
    ]) {
      const r = await call(a, 'POST', '/v1/responses', body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('unsupported_parameter');
      expect(r.body.error.message).toContain('--history-backend none');
    }
  });
});

describe('memory backend: conversations and lists', () => {
  const a = app();

  it('create, then the checks on metadata and items', async () => {
    const created = await call(a, 'POST', '/v1/conversations', { metadata: { a: 'b' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ object: 'conversation', metadata: { a: 'b' } });
    const id = created.body.id as string;
    expect(id).toMatch(/^conv_[0-9a-f]{32}$/);

    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', '/v1/conversations', { metadata: tooMany }, 400, 'metadata cannot have more than 16 properties'],
      ['POST', '/v1/conversations', { metadata: { a: 1 } }, 400, 'metadata.a: must be a string'],
      ['POST', '/v1/conversations', { items: Array.from({ length: 21 }, () => ({ role: 'user', content: 'x' })) }, 400, 'Cannot add more than 20 items at a time'],
      ['POST', `/v1/conversations/${id}/items`, { items: [{ type: 'web_search_call' }] }, 400, "Unsupported item type 'web_search_call'"],
      ['POST', `/v1/conversations/${id}/items`, { items: [{ type: 'message', content: 'x' }] }, 400, "Message items require 'role' field"],
      ['POST', `/v1/conversations/${id}/items`, {}, 400, "Missing or invalid 'items' field"],
      ['POST', `/v1/conversations/${id}/items`, { items: [{ type: 'item_reference', id: 'msg_nope' }] }, 404, "Referenced item 'msg_nope' not found"],
      ['GET', '/v1/conversations/conv_nope', undefined, 404, "Conversation with id 'conv_nope' not found."],
      ['GET', `/v1/conversations/${id}/items?limit=0`, undefined, 400, "limit: must be an integer from 1 to 100, got '0'"],
      ['GET', `/v1/conversations/${id}/items?order=sideways`, undefined, 400, "order: must be asc or desc, got 'sideways'"],
      ['GET', '/v1/responses/resp_nope/input_items', undefined, 404, "No response found with id 'resp_nope'"],
      ['POST', '/v1/responses/resp_nope/cancel', undefined, 404, "Response with id 'resp_nope' not found"],
    ];
    for (const [method, path, body, status, message] of cases) {
      const r = await call(a, method, path, body);
      expect([r.status, r.body.error?.message], `${method} ${path}`).toEqual([status, expect.stringContaining(message)]);
      expect(typeof r.body.error.type).toBe('string');
    }
  });

  it('an item id already in the conversation is a 400 item_already_in_conversation', async () => {
    const conv = (await call(a, 'POST', '/v1/conversations', { items: [{ id: 'msg_fixed_1', type: 'message', role: 'user', content: 'x' }] })).body.id;
    const again = await call(a, 'POST', `/v1/conversations/${conv}/items`, { items: [{ id: 'msg_fixed_1', type: 'message', role: 'user', content: 'x' }] });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'item_already_in_conversation', message: 'Item already in conversation', param: 'items' });
    const list = await call(a, 'GET', `/v1/conversations/${conv}/items`);
    expect(list.body).toEqual({
      object: 'list',
      data: [{ id: 'msg_fixed_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x' }], status: 'completed' }],
      first_id: 'msg_fixed_1',
      last_id: 'msg_fixed_1',
      has_more: false,
    });
  });

  it('a wrong method on a stored-state path is a 405', async () => {
    const r = await a.request('/v1/responses/resp_1/input_items', { method: 'DELETE' });
    expect(r.status).toBe(405);
  });
});
