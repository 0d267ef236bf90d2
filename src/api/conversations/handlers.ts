/**
 * /v1/conversations: create / retrieve / update / delete, and /items list / create / retrieve /
 * delete, as SMG serves them (model_gateway/src/routers/conversations/handlers.rs) with OpenAI's
 * objects and error envelope: a conversation is `{id, object: "conversation", created_at,
 * metadata}`; update merges `metadata` (a null value removes a key, at most 16 keys); deleting an
 * item answers the conversation. Items list with OpenAI's pagination (list-params.ts).
 */
import type { HistoryStore, StoredConversation } from '../../history/types.js';
import { PipelineError, invalid } from '../../pipeline/errors.js';
import { uuidv7 } from '../../pipeline/ids.js';
import { listBody, listParams } from '../list-params.js';
import { readObjectBody, storeRoute } from '../store-handler.js';
import { storeCall } from '../responses/store-errors.js';
import { itemsToAdd } from './items.js';

export const MAX_METADATA_PROPERTIES = 16;

const conversationObject = (c: StoredConversation) => ({ id: c.id, object: 'conversation', created_at: c.createdAt, metadata: c.metadata ?? {} });
const noConversation = (id: string) => new PipelineError(404, 'not_found', `Conversation with id '${id}' not found.`, true);

/** OpenAI's metadata rule: at most 16 keys of up to 64 characters, string values of up to 512. */
function checkMetadata(m: Record<string, unknown>): Record<string, unknown> | null {
  const keys = Object.keys(m);
  if (keys.length > MAX_METADATA_PROPERTIES) throw invalid(`metadata cannot have more than ${MAX_METADATA_PROPERTIES} properties`, 'metadata');
  for (const k of keys) {
    if (k.length > 64) throw invalid(`metadata: key '${k.slice(0, 64)}…' is longer than 64 characters`, 'metadata');
    const v = m[k];
    if (typeof v !== 'string') throw invalid(`metadata.${k}: must be a string`, `metadata.${k}`);
    if (v.length > 512) throw invalid(`metadata.${k}: must be at most 512 characters`, `metadata.${k}`);
  }
  return keys.length > 0 ? m : null;
}

function metadataOf(body: Record<string, unknown>): Record<string, unknown> | null | undefined {
  const m = body.metadata;
  if (m === undefined) return undefined;
  if (m === null) return null;
  if (typeof m !== 'object' || Array.isArray(m)) throw invalid('metadata must be an object', 'metadata');
  return m as Record<string, unknown>;
}

async function existing(store: HistoryStore, id: string): Promise<StoredConversation> {
  const c = await storeCall(() => store.getConversation(id));
  if (!c) throw noConversation(id);
  return c;
}

export const createConversation = storeRoute('POST /v1/conversations', async ({ store, request }) => {
  const body = await readObjectBody(request);
  const meta = metadataOf(body);
  const conv: StoredConversation = {
    id: `conv_${uuidv7().replaceAll('-', '')}`,
    createdAt: Math.floor(Date.now() / 1000),
    metadata: meta ? checkMetadata(meta) : null,
  };
  const items = await itemsToAdd(store, body.items, null, 'items');
  await storeCall(() => store.createConversation(conv, items));
  return Response.json(conversationObject(conv));
});

export const getConversation = storeRoute('GET /v1/conversations/{conversation_id}', async ({ store, params }) => {
  return Response.json(conversationObject(await existing(store, params.id)));
});

export const updateConversation = storeRoute('POST /v1/conversations/{conversation_id}', async ({ store, params, request }) => {
  const body = await readObjectBody(request);
  const current = await existing(store, params.id);
  const patch = metadataOf(body);
  let next = current.metadata;
  if (patch === null) next = null;
  else if (patch !== undefined) {
    const merged: Record<string, unknown> = { ...(current.metadata ?? {}) };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete merged[k];
      else merged[k] = v;
    }
    next = checkMetadata(merged);
  }
  const updated = await storeCall(() => store.updateConversation(params.id, next));
  if (!updated) throw noConversation(params.id);
  return Response.json(conversationObject(updated));
});

export const deleteConversation = storeRoute('DELETE /v1/conversations/{conversation_id}', async ({ store, params }) => {
  if (!(await storeCall(() => store.deleteConversation(params.id)))) throw noConversation(params.id);
  return Response.json({ id: params.id, object: 'conversation.deleted', deleted: true });
});

export const listItems = storeRoute('GET /v1/conversations/{conversation_id}/items', async ({ store, params, query }) => {
  const page = listParams(query);
  await existing(store, params.id);
  const { items, hasMore } = await storeCall(() => store.listItems(params.id, page));
  return Response.json(listBody(items.map((it) => it.item), hasMore));
});

export const createItems = storeRoute('POST /v1/conversations/{conversation_id}/items', async ({ store, params, request }) => {
  const body = await readObjectBody(request);
  await existing(store, params.id);
  if (!Array.isArray(body.items)) throw invalid("Missing or invalid 'items' field", 'items');
  const items = await itemsToAdd(store, body.items, params.id, 'items');
  await storeCall(() => store.addItems(params.id, items));
  return Response.json(listBody(items.map((it) => it.item), false));
});

export const getItem = storeRoute('GET /v1/conversations/{conversation_id}/items/{item_id}', async ({ store, params }) => {
  await existing(store, params.id);
  const it = await storeCall(() => store.getLinkedItem(params.id, params.itemId));
  if (!it) throw new PipelineError(404, 'not_found', `Item with id '${params.itemId}' not found in conversation '${params.id}'.`, true);
  return Response.json(it.item);
});

export const deleteItem = storeRoute('DELETE /v1/conversations/{conversation_id}/items/{item_id}', async ({ store, params }) => {
  const conv = await existing(store, params.id);
  if (!(await storeCall(() => store.unlinkItem(params.id, params.itemId)))) {
    throw new PipelineError(404, 'not_found', `Item with id '${params.itemId}' not found in conversation '${params.id}'.`, true);
  }
  return Response.json(conversationObject(conv));
});
