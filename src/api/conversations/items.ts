/**
 * Items a client adds to a conversation (POST /v1/conversations with `items`, and
 * POST /v1/conversations/{id}/items), as SMG checks them (model_gateway/src/routers/conversations/
 * handlers.rs: at most 20 per request, a message needs a role, an `item_reference` names an
 * item already stored, an item id already in the conversation is a 400
 * item_already_in_conversation). Only the item types a turn can replay are accepted.
 */
import type { HistoryStore, Json, StoredItem } from '../../history/types.js';
import { PipelineError, invalid } from '../../pipeline/errors.js';
import { MAX_ID_LENGTH, normalizeItem } from '../responses/store-turn.js';
import { storeCall } from '../responses/store-errors.js';

export const MAX_ITEMS_PER_REQUEST = 20;
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'];

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The request's items as stored items: new ones with fresh ids, references as the items they name. */
export async function itemsToAdd(store: HistoryStore, raw: unknown, conversationId: string | null, field: string): Promise<StoredItem[]> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid(`${field}: must be an array of items`, field);
  if (raw.length > MAX_ITEMS_PER_REQUEST) throw invalid(`Cannot add more than ${MAX_ITEMS_PER_REQUEST} items at a time`, field);
  const now = Math.floor(Date.now() / 1000);
  const out: StoredItem[] = [];
  for (const [i, v] of raw.entries()) {
    const where = `${field}[${i}]`;
    if (!isObj(v)) throw invalid(`${where}: must be an object`, where);
    if (v.type === 'item_reference') {
      if (typeof v.id !== 'string') throw invalid(`${where}: item_reference requires 'id' field`, where);
      const ref = await storeCall(() => store.getItem(v.id as string));
      if (!ref) throw new PipelineError(404, 'not_found', `Referenced item '${v.id}' not found`, true, where);
      out.push(ref);
      continue;
    }
    if (typeof v.id === 'string' && v.id.length > MAX_ID_LENGTH) throw invalid(`${where}.id: must be at most ${MAX_ID_LENGTH} characters`, `${where}.id`);
    const item = normalizeItem(v) as Json;
    const type = String(item.type);
    if (!ITEM_TYPES.includes(type)) throw invalid(`Unsupported item type '${type}'. Supported types: ${ITEM_TYPES.join(', ')}`, `${where}.type`);
    if (type === 'message' && typeof item.role !== 'string') throw invalid("Message items require 'role' field", `${where}.role`);
    if (type === 'message' && !Array.isArray(item.content)) throw invalid(`${where}.content: must be a string or an array of content parts`, `${where}.content`);
    if (typeof v.id === 'string' && conversationId !== null) {
      const linked = await storeCall(() => store.getLinkedItem(conversationId, v.id as string));
      if (linked) throw new PipelineError(400, 'item_already_in_conversation', 'Item already in conversation', true, 'items');
    }
    if (item.status === undefined) item.status = 'completed';
    out.push({ id: item.id as string, responseId: null, item, createdAt: now });
  }
  return out;
}
