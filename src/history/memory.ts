/**
 * `--history-backend memory` (the default): responses, conversations and items in one
 * least-recently-used map bounded by entries and bytes, so a long-running gateway never grows
 * without end (SMG's memory backend, crates/data_connector/src/memory.rs, keeps everything until
 * restart). Reading a response, walking a chain or listing a conversation keeps its records warm;
 * what nobody has used for longest goes first. Lost on restart, and private to one process.
 */
import { Lru } from './lru.js';
import type { HistoryStore, ItemPage, ListParams, StoredConversation, StoredItem, StoredResponse } from './types.js';

/** Records kept at most (responses + conversations + items). */
export const MEMORY_MAX_ENTRIES = 100_000;
/** Bytes kept at most: the JSON size of every record. */
export const MEMORY_MAX_BYTES = 256 * 1024 * 1024;
/** What a conversation's link to one item is counted as. */
const LINK_BYTES = 64;

type Entry =
  | { kind: 'response'; value: StoredResponse }
  | { kind: 'item'; value: StoredItem }
  | { kind: 'conversation'; value: StoredConversation; links: Map<string, number> };

const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

export interface MemoryLimits {
  maxEntries?: number;
  maxBytes?: number;
}

export class MemoryHistoryStore implements HistoryStore {
  readonly backend = 'memory';
  private readonly lru: Lru<Entry>;
  /** Link order: one counter for the whole store, so items added later always sort later. */
  private seq = 0;

  constructor(limits: MemoryLimits = {}) {
    this.lru = new Lru(limits.maxEntries ?? MEMORY_MAX_ENTRIES, limits.maxBytes ?? MEMORY_MAX_BYTES);
  }

  /** Entries and bytes held now (for tests and logs). */
  usage(): { entries: number; bytes: number } {
    return { entries: this.lru.size, bytes: this.lru.bytes };
  }

  async start(): Promise<void> {}

  async putResponse(response: StoredResponse, items: StoredItem[]): Promise<void> {
    this.lru.set(`r:${response.id}`, { kind: 'response', value: response }, bytesOf(response));
    if (response.conversationId) await this.addItems(response.conversationId, items);
    else for (const it of items) this.putItem(it);
  }

  async getResponse(id: string): Promise<StoredResponse | null> {
    const e = this.lru.get(`r:${id}`);
    return e?.kind === 'response' ? e.value : null;
  }

  async chain(id: string, maxDepth: number): Promise<StoredResponse[]> {
    const out: StoredResponse[] = [];
    let next: string | null = id;
    while (next !== null && out.length < maxDepth) {
      const r = await this.getResponse(next);
      if (!r) break;
      out.push(r);
      next = r.previousResponseId;
    }
    return out.reverse();
  }

  async deleteResponse(id: string): Promise<boolean> {
    return this.lru.delete(`r:${id}`);
  }

  async getItem(id: string): Promise<StoredItem | null> {
    const e = this.lru.get(`i:${id}`);
    return e?.kind === 'item' ? e.value : null;
  }

  async createConversation(conv: StoredConversation, items: StoredItem[]): Promise<void> {
    this.lru.set(`c:${conv.id}`, { kind: 'conversation', value: conv, links: new Map() }, bytesOf(conv));
    if (items.length > 0) await this.addItems(conv.id, items);
  }

  async getConversation(id: string): Promise<StoredConversation | null> {
    return this.conv(id)?.value ?? null;
  }

  async updateConversation(id: string, metadata: Record<string, unknown> | null): Promise<StoredConversation | null> {
    const c = this.conv(id);
    if (!c) return null;
    c.value = { ...c.value, metadata };
    this.resize(c);
    return c.value;
  }

  async deleteConversation(id: string): Promise<boolean> {
    return this.lru.delete(`c:${id}`);
  }

  async addItems(conversationId: string, items: StoredItem[]): Promise<void> {
    const c = this.conv(conversationId);
    for (const it of items) {
      this.putItem(it);
      if (c && !c.links.has(it.id)) c.links.set(it.id, ++this.seq);
    }
    if (c) this.resize(c);
  }

  async listItems(conversationId: string, params: ListParams): Promise<ItemPage> {
    const c = this.conv(conversationId);
    if (!c) return { items: [], hasMore: false };
    const ids = [...c.links.keys()];
    if (params.order === 'desc') ids.reverse();
    let start = 0;
    if (params.after !== undefined) {
      const at = ids.indexOf(params.after);
      start = at === -1 ? ids.length : at + 1;
    }
    const items: StoredItem[] = [];
    let i = start;
    for (; i < ids.length && items.length < params.limit; i++) {
      const it = await this.getItem(ids[i]);
      // An item the bounds pushed out is gone from the conversation too.
      if (it) items.push(it);
      else c.links.delete(ids[i]);
    }
    return { items, hasMore: ids.slice(i).some((id) => this.lru.has(`i:${id}`)) };
  }

  async getLinkedItem(conversationId: string, itemId: string): Promise<StoredItem | null> {
    const c = this.conv(conversationId);
    if (!c?.links.has(itemId)) return null;
    return this.getItem(itemId);
  }

  async unlinkItem(conversationId: string, itemId: string): Promise<boolean> {
    const c = this.conv(conversationId);
    if (!c?.links.delete(itemId)) return false;
    this.resize(c);
    return true;
  }

  async close(): Promise<void> {}

  private putItem(it: StoredItem): void {
    // An id already stored keeps its first record (as the postgres backend's ON CONFLICT DO NOTHING).
    if (this.lru.get(`i:${it.id}`)) return;
    this.lru.set(`i:${it.id}`, { kind: 'item', value: it }, bytesOf(it));
  }

  private conv(id: string): (Entry & { kind: 'conversation' }) | null {
    const e = this.lru.get(`c:${id}`);
    return e?.kind === 'conversation' ? e : null;
  }

  private resize(c: Entry & { kind: 'conversation' }): void {
    this.lru.set(`c:${c.value.id}`, c, bytesOf(c.value) + c.links.size * LINK_BYTES);
  }
}
