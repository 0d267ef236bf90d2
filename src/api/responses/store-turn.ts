/**
 * The stored-state side of POST /v1/responses, before and after generation:
 *
 * - before: the stateful fields are checked (`store`, `previous_response_id`, `conversation`),
 *   the turn's input becomes items with ids (`item_reference` items replaced by the items they
 *   name), and the history the turn continues is put in front of it: every response of the
 *   `previous_response_id` chain, oldest first, as its input items then its output items
 *   (reasoning and tool calls included), or every item of the `conversation` in order. The
 *   instructions of earlier turns are not carried over (OpenAI's rule for previous_response_id).
 * - after: the finished turn is stored (a response row, its items, the conversation links).
 *
 * Texts and statuses follow SMG (model_gateway/src/routers/grpc/regular/responses/common.rs
 * load_conversation_history: unknown previous response → 400 previous_response_not_found,
 * unknown conversation → 404 conversation_not_found). Unlike SMG, a conversation replays every
 * item type it holds, not only messages, so tool loops continue inside a conversation.
 */
import type { HistoryStore, Json, StoredItem } from '../../history/types.js';
import { PipelineError, invalid } from '../../pipeline/errors.js';
import { uuidv7 } from '../../pipeline/ids.js';
import { type Body, optBool, optString } from '../openai/fields.js';
import { storeCall } from './store-errors.js';

/** Longest previous_response_id chain replayed. */
export const MAX_CHAIN_DEPTH = 1000;
/** Item ids are stored as VARCHAR(64), as SMG's tables have them. */
export const MAX_ID_LENGTH = 64;
/** Most conversation items replayed into one turn. */
export const MAX_CONVERSATION_ITEMS = 10_000;

export interface TurnState {
  /** The finished response is kept (store not false, and a backend that keeps things). */
  store: boolean;
  previousResponseId: string | null;
  conversationId: string | null;
  /** This turn's own input items, with ids, references resolved. */
  input: Json[];
}

export interface PreparedTurn {
  /** The request body with `input` = history + this turn's items. */
  body: Body;
  state: TurnState;
}

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const ID_PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/** A fresh item id in OpenAI's style: `<prefix>_<32 hex>`. */
export function newItemId(type: string): string {
  return `${ID_PREFIX[type] ?? 'item'}_${uuidv7().replaceAll('-', '')}`;
}

function noStore(field: string): PipelineError {
  return new PipelineError(
    400,
    'unsupported_parameter',
    `${field} is not supported: this gateway runs with --history-backend none and keeps no state; send the whole conversation in \`input\``,
    true,
    field,
  );
}

/** `conversation`: an id, or `{id}`. */
function conversationId(body: Body): string | null {
  const v = body.conversation;
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' && v !== '') return v;
  if (isObj(v) && typeof v.id === 'string' && v.id !== '') return v.id;
  throw invalid("conversation: must be a conversation id or an object with a string 'id'", 'conversation');
}

/**
 * An input item as it is stored and shown by input_items: `type` made explicit, a string message
 * content as one text part, and an `id`. Anything malformed is left for the request parser to refuse.
 */
export function normalizeItem(raw: unknown): unknown {
  if (!isObj(raw)) return raw;
  const type = raw.type ?? (typeof raw.role === 'string' ? 'message' : undefined);
  if (typeof type !== 'string') return raw;
  const item: Json = { ...raw, type };
  if (type === 'message' && typeof item.content === 'string') {
    item.content = [item.role === 'assistant' ? { type: 'output_text', text: item.content, annotations: [] } : { type: 'input_text', text: item.content }];
  }
  if (typeof item.id !== 'string' || item.id === '') item.id = newItemId(type);
  return item;
}

export async function beginTurn(body: Body, history: HistoryStore | undefined): Promise<PreparedTurn> {
  const storeWanted = optBool(body, 'store') ?? true;
  const previousResponseId = optString(body, 'previous_response_id') ?? null;
  const convId = conversationId(body);
  if (previousResponseId !== null && convId !== null) {
    throw new PipelineError(
      400,
      'mutually_exclusive_parameters',
      "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
      true,
      'previous_response_id',
    );
  }
  const store = history && history.backend !== 'none' ? history : null;
  if (!store) {
    if (previousResponseId !== null) throw noStore('previous_response_id');
    if (convId !== null) throw noStore('conversation');
  }

  // Ids of items that will be stored must fit the tables' VARCHAR(64); others are never stored.
  const writes = store !== null && (storeWanted || convId !== null);
  const raw = body.input;
  const given: unknown[] = typeof raw === 'string' ? [{ type: 'message', role: 'user', content: raw }] : Array.isArray(raw) ? raw : [];
  const input: unknown[] = [];
  for (const [i, item] of given.entries()) {
    if (isObj(item) && item.type === 'item_reference') {
      if (!store) throw noStore(`input[${i}] (item_reference)`);
      if (typeof item.id !== 'string') throw invalid(`input[${i}].id: an item_reference needs the string id of a stored item`, `input[${i}].id`);
      const ref = await storeCall(() => store.getItem(item.id as string));
      if (!ref) throw new PipelineError(404, 'not_found', `Item with id '${item.id}' not found.`, true, 'input');
      input.push(ref.item);
    } else {
      if (writes && isObj(item) && typeof item.id === 'string' && item.id.length > MAX_ID_LENGTH) {
        throw invalid(`input[${i}].id: must be at most ${MAX_ID_LENGTH} characters`, `input[${i}].id`);
      }
      input.push(normalizeItem(item));
    }
  }

  const before: Json[] = [];
  if (store && previousResponseId !== null) {
    const chain = await storeCall(() => store.chain(previousResponseId, MAX_CHAIN_DEPTH));
    if (chain.length === 0) {
      throw new PipelineError(400, 'previous_response_not_found', `Previous response with id '${previousResponseId}' not found.`, true, 'previous_response_id');
    }
    for (const r of chain) {
      before.push(...r.input);
      if (Array.isArray(r.raw.output)) before.push(...(r.raw.output as Json[]));
    }
  }
  if (store && convId !== null) {
    const conv = await storeCall(() => store.getConversation(convId));
    if (!conv) {
      throw new PipelineError(
        404,
        'conversation_not_found',
        `Conversation '${convId}' not found. Please create the conversation first using the conversations API.`,
        true,
        'conversation',
      );
    }
    before.push(...(await conversationItems(store, convId)).map((it) => it.item));
  }

  return {
    body: { ...body, input: replayInput(raw, before, input) },
    state: { store: store !== null && storeWanted, previousResponseId, conversationId: convId, input: input.filter(isObj) },
  };
}

/**
 * What the request parser sees as `input`: history + this turn's items. A string input with no
 * history stays a string, and a malformed input stays as sent, so the parser answers as before.
 */
function replayInput(raw: unknown, before: Json[], input: unknown[]): unknown {
  if (Array.isArray(raw)) return [...before, ...input];
  if (typeof raw === 'string') return before.length > 0 ? [...before, ...input] : raw;
  if ((raw === undefined || raw === null) && before.length > 0) return before;
  return raw;
}

async function conversationItems(store: HistoryStore, id: string): Promise<StoredItem[]> {
  const out: StoredItem[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await storeCall(() => store.listItems(id, { limit: 100, order: 'asc', after }));
    out.push(...page.items);
    if (!page.hasMore || page.items.length === 0 || out.length >= MAX_CONVERSATION_ITEMS) return out.slice(0, MAX_CONVERSATION_ITEMS);
    after = page.items[page.items.length - 1].id;
  }
}

/** True when the finished turn has something to write. */
export function turnWrites(state: TurnState): boolean {
  return state.store || state.conversationId !== null;
}

/**
 * Writes the finished turn: with `store`, the response row and its items (linked to the
 * conversation when there is one) in one transaction; without it, a conversation still gets the
 * turn's items, as OpenAI adds a response's input and output to its conversation.
 */
export async function saveTurn(history: HistoryStore, state: TurnState, response: Json, model: string, createdAt: number): Promise<void> {
  const id = response.id as string;
  const output = Array.isArray(response.output) ? (response.output as Json[]) : [];
  const items: StoredItem[] = [...state.input, ...output]
    .filter((item) => typeof item.id === 'string')
    .map((item) => ({ id: item.id as string, responseId: id, item, createdAt }));
  await storeCall(async () => {
    if (state.store) {
      await history.putResponse(
        { id, previousResponseId: state.previousResponseId, conversationId: state.conversationId, input: state.input, raw: response, model, createdAt },
        items,
      );
    } else if (state.conversationId !== null) {
      await history.addItems(state.conversationId, items);
    }
  });
}
