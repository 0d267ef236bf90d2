/**
 * Stateful Responses and Conversations with the official openai client, on both history
 * backends: the in-memory default and PostgreSQL (a real PostgreSQL engine: PGlite behind its
 * wire-protocol server, support/pglite-server.ts). The mock model answers by prompt
 * (support/history-rig.ts), so a turn-2 answer proves the gateway replayed turn 1 into the prompt.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyRig } from './support/any-rig.js';
import { MODEL, startHistoryRig } from './support/history-rig.js';
import { type PgServer, startPgServer } from './support/pglite-server.js';

const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

/** Fields the client's Response type leaves out but the API object has. */
const stored = (r: object) => (r as { store?: boolean }).store;
const messageId = (r: OpenAI.Responses.Response) => r.output.find((o) => o.type === 'message')!.id;

async function failure(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

describe.each(['memory', 'postgres'] as const)('stored responses and conversations on %s (e2e)', (backend) => {
  let pg: PgServer | null = null;
  let rig: AnyRig;
  let openai: OpenAI;
  beforeAll(async () => {
    if (backend === 'postgres') pg = await startPgServer();
    rig = await startHistoryRig(backend, pg?.url);
    openai = rig.openai;
  });
  afterAll(async () => {
    await rig?.stop();
    await pg?.close();
  });

  it('a JSON chain: turn 2 sees turn 1, GET returns the stored object, input_items pages', async () => {
    const r1 = await openai.responses.create({ model: MODEL, input: 'My name is Ada.', instructions: 'Be brief.' });
    expect(r1.output_text.trim()).toBe('Nice to meet you, Ada.');
    expect(stored(r1)).toBe(true);
    const got = await openai.responses.retrieve(r1.id);
    expect(got).toEqual(r1);

    const r2 = await openai.responses.create({ model: MODEL, input: 'What is my name?', previous_response_id: r1.id });
    expect(r2.output_text.trim()).toBe('Your name is Ada.');
    expect(r2.previous_response_id).toBe(r1.id);

    // Without the link the model does not know.
    const alone = await openai.responses.create({ model: MODEL, input: 'What is my name?', store: false });
    expect(alone.output_text.trim()).toBe('I do not know your name.');

    const items = await openai.responses.inputItems.list(r2.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] });
    expect(items.data[0].id).toMatch(/^msg_/);

    // Three items, paged one at a time in both orders.
    const r3 = await openai.responses.create({
      model: MODEL,
      input: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'Count to three' },
      ],
    });
    const asc = await openai.responses.inputItems.list(r3.id, { order: 'asc', limit: 1 });
    expect(asc.data).toHaveLength(1);
    expect(asc.has_more).toBe(true);
    const all: string[] = [];
    for await (const it of openai.responses.inputItems.list(r3.id, { order: 'asc', limit: 1 })) all.push(JSON.stringify((it as { content: unknown }).content));
    expect(all).toHaveLength(3);
    expect(all[2]).toContain('Count to three');
    const desc = await openai.responses.inputItems.list(r3.id, { limit: 2 });
    expect(desc.data.map((d) => (d as { role: string }).role)).toEqual(['user', 'assistant']);
    // The list envelope as the client receives it.
    const raw = (await (await fetch(`${rig.gatewayURL}/v1/responses/${r3.id}/input_items?limit=2&order=desc`)).json()) as Record<string, unknown>;
    expect(raw).toEqual({ object: 'list', data: desc.data, first_id: desc.data[0].id, last_id: desc.data[1].id, has_more: true });
  });

  it('a streamed chain: stored once complete, continued by a streamed turn', async () => {
    const s1 = openai.responses.stream({ model: MODEL, input: 'My name is Ada.' });
    const r1 = await s1.finalResponse();
    expect(r1.output_text.trim()).toBe('Nice to meet you, Ada.');
    const kept = await openai.responses.retrieve(r1.id);
    expect(kept.status).toBe('completed');
    expect(kept.output.map((o) => o.id)).toEqual(r1.output.map((o) => o.id));
    expect(kept.output_text).toBe(r1.output_text);

    const s2 = openai.responses.stream({ model: MODEL, input: 'What is my name?', previous_response_id: r1.id });
    let text = '';
    for await (const ev of s2) if (ev.type === 'response.output_text.delta') text += ev.delta;
    expect(text.trim()).toBe('Your name is Ada.');
    expect((await s2.finalResponse()).previous_response_id).toBe(r1.id);
  });

  it('a tool loop over previous_response_id replays the reasoning and the call', async () => {
    const r1 = await openai.responses.create({ model: MODEL, input: "What's the weather in Paris?", tools: [WEATHER_TOOL] });
    expect(r1.output.map((o) => o.type)).toEqual(['reasoning', 'function_call']);
    const call = r1.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    const r2 = await openai.responses.create({
      model: MODEL,
      previous_response_id: r1.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '18C' }],
      tools: [WEATHER_TOOL],
    });
    expect(r2.output_text.trim()).toBe('It is 18 degrees in Paris.');
  });

  it('item_reference: earlier items by id, as the AI SDK sends them; unknown ids are a 404', async () => {
    const r1 = await openai.responses.create({ model: MODEL, input: 'My name is Ada.' });
    const [userItem] = (await openai.responses.inputItems.list(r1.id)).data;
    const r2 = await openai.responses.create({
      model: MODEL,
      store: false,
      input: [
        { type: 'item_reference', id: userItem.id! },
        { type: 'item_reference', id: messageId(r1) },
        { role: 'user', content: 'What is my name?' },
      ],
    });
    expect(r2.output_text.trim()).toBe('Your name is Ada.');
    const err = await failure(openai.responses.create({ model: MODEL, input: [{ type: 'item_reference', id: 'msg_nope' }] }));
    expect(err.status).toBe(404);
    expect(err.message).toContain("Item with id 'msg_nope' not found.");
  });

  it('store: false is not kept; an unknown or unstored previous_response_id is a 400', async () => {
    const r = await openai.responses.create({ model: MODEL, input: 'My name is Ada.', store: false });
    expect(stored(r)).toBe(false);
    expect((await failure(openai.responses.retrieve(r.id))).status).toBe(404);
    const err = await failure(openai.responses.create({ model: MODEL, input: 'What is my name?', previous_response_id: r.id }));
    expect(err.status).toBe(400);
    expect((err.error as { message?: string }).message).toBe(`Previous response with id '${r.id}' not found.`);
    expect((err.error as { code?: string }).code).toBe('previous_response_not_found');
  });

  it('DELETE, cancel and strict field types', async () => {
    const r = await openai.responses.create({ model: MODEL, input: 'My name is Ada.' });
    const cancel = await failure(openai.responses.cancel(r.id));
    expect(cancel.status).toBe(400);
    expect((cancel.error as { message?: string }).message).toBe('Cannot cancel completed response');
    expect((await failure(openai.responses.cancel('resp_missing'))).status).toBe(404);
    await openai.responses.delete(r.id);
    expect((await failure(openai.responses.retrieve(r.id))).status).toBe(404);
    expect((await failure(openai.responses.delete(r.id))).status).toBe(404);

    for (const bad of [{ store: 'yes' }, { background: 1 }, { reasoning: { effort: 'extreme' } }, { previous_response_id: r.id, conversation: 'conv_x' }]) {
      const err = await failure(openai.responses.create({ model: MODEL, input: 'hi', ...(bad as object) }));
      expect(err.status).toBe(400);
    }
    const bg = await failure(openai.responses.create({ model: MODEL, input: 'hi', background: true }));
    expect(bg.message).toContain('background: true is not supported');
  });

  it('conversations: create with items, respond in it, list/retrieve/delete items, update, delete', async () => {
    const conv = await openai.conversations.create({
      metadata: { topic: 'names' },
      items: [
        { type: 'message', role: 'user', content: 'My name is Ada.' },
        { type: 'message', role: 'assistant', content: 'Nice to meet you, Ada.' },
      ],
    });
    expect(conv.id).toMatch(/^conv_/);
    expect(conv.metadata).toEqual({ topic: 'names' });

    const r = await openai.responses.create({ model: MODEL, input: 'What is my name?', conversation: conv.id });
    expect(r.output_text.trim()).toBe('Your name is Ada.');
    expect(r.conversation).toEqual({ id: conv.id });

    const items = await openai.conversations.items.list(conv.id, { order: 'asc' });
    // The two created items, then the turn's input and its output (reasoning, then the answer).
    expect(items.data.map((i) => `${i.type}:${(i as { role?: string }).role ?? ''}`)).toEqual([
      'message:user',
      'message:assistant',
      'message:user',
      'reasoning:',
      'message:assistant',
    ]);
    expect(items.data[4].id).toBe(messageId(r));
    const desc = await openai.conversations.items.list(conv.id, { limit: 3 });
    expect(desc.data[0].id).toBe(messageId(r));
    expect(desc.has_more).toBe(true);
    const rest = await openai.conversations.items.list(conv.id, { limit: 3, after: desc.data[2].id! });
    expect(rest.data).toHaveLength(2);
    expect(rest.has_more).toBe(false);

    const added = await openai.conversations.items.create(conv.id, { items: [{ type: 'message', role: 'user', content: 'Count to three' }] });
    expect(added.data).toHaveLength(1);
    const addedId = added.data[0].id!;
    const one = await openai.conversations.items.retrieve(addedId, { conversation_id: conv.id });
    expect(one).toMatchObject({ type: 'message', role: 'user' });
    const after = await openai.conversations.items.delete(addedId, { conversation_id: conv.id });
    expect(after.id).toBe(conv.id);
    expect((await failure(openai.conversations.items.retrieve(addedId, { conversation_id: conv.id }))).status).toBe(404);

    const updated = await openai.conversations.update(conv.id, { metadata: { lang: 'en' } });
    expect(updated.metadata).toEqual({ topic: 'names', lang: 'en' });
    expect((await openai.conversations.retrieve(conv.id)).metadata).toEqual({ topic: 'names', lang: 'en' });

    const deleted = await openai.conversations.delete(conv.id);
    expect(deleted).toMatchObject({ id: conv.id, object: 'conversation.deleted', deleted: true });
    expect((await failure(openai.conversations.retrieve(conv.id))).status).toBe(404);
    const gone = await failure(openai.responses.create({ model: MODEL, input: 'hi', conversation: conv.id }));
    expect(gone.status).toBe(404);
    expect(gone.message).toContain(`Conversation '${conv.id}' not found.`);
  });
});
