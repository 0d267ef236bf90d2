/**
 * The history store: what `/v1/responses` and `/v1/conversations` keep between requests, behind
 * one interface with one file per backend (memory.ts, postgres.ts, none.ts). The records follow
 * SMG's data connector (smg-project/smg crates/data_connector/src/core.rs, postgres.rs): a
 * response row keeps its turn's input items and the whole response object; conversation items
 * are rows of their own, joined to conversations by link rows, so one item can be referenced
 * (`item_reference`) from any later request.
 */
export type Json = Record<string, unknown>;

export const HISTORY_BACKENDS = ['memory', 'none', 'postgres'] as const;
export type HistoryBackend = (typeof HISTORY_BACKENDS)[number];

export interface StoredResponse {
  /** `resp_…` */
  id: string;
  previousResponseId: string | null;
  conversationId: string | null;
  /** This turn's input items (item references resolved), each with an `id`. */
  input: Json[];
  /** The response object exactly as GET /v1/responses/{id} returns it; its `output` holds the output items. */
  raw: Json;
  model: string;
  /** Unix seconds. */
  createdAt: number;
}

export interface StoredConversation {
  /** `conv_…` */
  id: string;
  createdAt: number;
  metadata: Record<string, unknown> | null;
}

/** One item (message, function_call, function_call_output, reasoning, …) as the API shows it. */
export interface StoredItem {
  id: string;
  /** The response whose turn produced or consumed it; null for items added through /items. */
  responseId: string | null;
  /** The full item JSON, `id` and `type` included. */
  item: Json;
  createdAt: number;
}

export interface ListParams {
  /** 1..100 */
  limit: number;
  order: 'asc' | 'desc';
  /** An item id: the page starts after it. */
  after?: string;
}

export interface ItemPage {
  items: StoredItem[];
  hasMore: boolean;
}

export interface HistoryStore {
  readonly backend: HistoryBackend;
  /** Connects and prepares the schema; a failure is logged and retried on the next use. */
  start(): Promise<void>;
  /**
   * Stores one finished turn: the response row, its input and output items, and (with a
   * conversation) their links, all or nothing. Items whose id is already stored are kept as they
   * were (a client may send an earlier output item back as input).
   */
  putResponse(response: StoredResponse, items: StoredItem[]): Promise<void>;
  getResponse(id: string): Promise<StoredResponse | null>;
  /** The chain ending at `id`, oldest first, at most `maxDepth` long; empty when `id` is unknown. */
  chain(id: string, maxDepth: number): Promise<StoredResponse[]>;
  deleteResponse(id: string): Promise<boolean>;
  /** Any stored item by id (the target of an `item_reference`). */
  getItem(id: string): Promise<StoredItem | null>;

  createConversation(conv: StoredConversation, items: StoredItem[]): Promise<void>;
  getConversation(id: string): Promise<StoredConversation | null>;
  updateConversation(id: string, metadata: Record<string, unknown> | null): Promise<StoredConversation | null>;
  deleteConversation(id: string): Promise<boolean>;
  /** Creates the items not yet stored and links all of them to the conversation, in order. */
  addItems(conversationId: string, items: StoredItem[]): Promise<void>;
  listItems(conversationId: string, params: ListParams): Promise<ItemPage>;
  /** The item when it is linked to the conversation. */
  getLinkedItem(conversationId: string, itemId: string): Promise<StoredItem | null>;
  /** Removes the item from the conversation; false when it was not linked. */
  unlinkItem(conversationId: string, itemId: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The store could not be reached (database down, pool exhausted, connection lost). Requests that
 * need the store answer 503 with this message; nothing else is affected.
 */
export class HistoryUnavailableError extends Error {
  override name = 'HistoryUnavailableError';
}
