/**
 * `--history-backend none`: nothing is kept. Requests that do not ask for stored state are served
 * as usual (a `store: true` turn is simply not kept, as SMG's no-op backend does,
 * crates/data_connector/src/noop.rs); the API layer refuses what needs a store with a 400 that
 * names the flag, so this class is never asked to read.
 */
import type { HistoryStore, ItemPage, StoredConversation, StoredItem, StoredResponse } from './types.js';

export class NoHistoryStore implements HistoryStore {
  readonly backend = 'none';
  async start(): Promise<void> {}
  async putResponse(): Promise<void> {}
  async getResponse(): Promise<StoredResponse | null> {
    return null;
  }
  async chain(): Promise<StoredResponse[]> {
    return [];
  }
  async deleteResponse(): Promise<boolean> {
    return false;
  }
  async getItem(): Promise<StoredItem | null> {
    return null;
  }
  async createConversation(): Promise<void> {}
  async getConversation(): Promise<StoredConversation | null> {
    return null;
  }
  async updateConversation(): Promise<StoredConversation | null> {
    return null;
  }
  async deleteConversation(): Promise<boolean> {
    return false;
  }
  async addItems(): Promise<void> {}
  async listItems(): Promise<ItemPage> {
    return { items: [], hasMore: false };
  }
  async getLinkedItem(): Promise<StoredItem | null> {
    return null;
  }
  async unlinkItem(): Promise<boolean> {
    return false;
  }
  async close(): Promise<void> {}
}
