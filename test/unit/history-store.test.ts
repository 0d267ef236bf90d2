// The history store's contract, the same on both backends: the memory store and the postgres
// store on a real PostgreSQL (PGlite behind its wire-protocol server). Then what only one of them
// does: the memory bounds (entries, bytes, least recently used out), and postgres's schema
// versions, transactions and outages.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lru } from '../../src/history/lru.js';
import { MemoryHistoryStore } from '../../src/history/memory.js';
import { PostgresHistoryStore } from '../../src/history/postgres.js';
import { HistoryUnavailableError, type HistoryStore, type StoredItem, type StoredResponse } from '../../src/history/types.js';
import { silentLogger } from '../../src/util/logger.js';
import { type PgServer, startPgServer } from '../e2e/support/pglite-server.js';

const NOW = 1_790_000_000;
let seq = 0;
const uid = (p: string) => `${p}_${process.pid}_${++seq}`;

function item(id: string, text: string, role = 'user'): StoredItem {
  return { id, responseId: null, item: { id, type: 'message', status: 'completed', role, content: [{ type: 'input_text', text }] }, createdAt: NOW };
}

function response(id: string, prev: string | null, conv: string | null = null, input: StoredItem[] = []): StoredResponse {
  return { id, previousResponseId: prev, conversationId: conv, input: input.map((i) => i.item), raw: { id, object: 'response', status: 'completed', output: [] }, model: 'm', createdAt: NOW };
}

let server: PgServer;
const stores: HistoryStore[] = [];
// PGlite compiles its WASM PostgreSQL at start: seconds on a busy machine.
beforeAll(async () => {
  server = await startPgServer();
}, 120_000);
afterAll(async () => {
  for (const s of stores) await s.close();
  await server?.close();
});

function postgres(poolMax = 2): PostgresHistoryStore {
  const s = new PostgresHistoryStore({ url: server.url, poolMax, logger: silentLogger(), connectTimeoutMs: 2000 });
  stores.push(s);
  return s;
}

describe.each(['memory', 'postgres'] as const)('history store contract: %s', (backend) => {
  let store: HistoryStore;
  beforeAll(async () => {
    store = backend === 'memory' ? new MemoryHistoryStore() : postgres();
    await store.start();
  });

  it('a chain comes back oldest first, cut at maxDepth, empty for an unknown id', async () => {
    const [a, b, c] = [uid('resp'), uid('resp'), uid('resp')];
    const q = item(uid('msg'), 'q');
    await store.putResponse(response(a, null, null, [q]), [q]);
    await store.putResponse(response(b, a), []);
    await store.putResponse(response(c, b), []);
    expect((await store.chain(c, 100)).map((r) => r.id)).toEqual([a, b, c]);
    expect((await store.chain(c, 2)).map((r) => r.id)).toEqual([b, c]);
    expect(await store.chain('resp_unknown', 100)).toEqual([]);
    expect((await store.getResponse(a))?.input).toEqual([q.item]);
    expect(await store.getItem(q.id)).toMatchObject({ id: q.id, item: q.item });
    expect(await store.deleteResponse(b)).toBe(true);
    expect(await store.deleteResponse(b)).toBe(false);
    // A deleted link ends the chain there.
    expect((await store.chain(c, 100)).map((r) => r.id)).toEqual([c]);
  });

  it('an item id stored twice keeps its first record', async () => {
    const id = uid('msg');
    await store.putResponse(response(uid('resp'), null), [item(id, 'first')]);
    await store.putResponse(response(uid('resp'), null), [item(id, 'second')]);
    expect(((await store.getItem(id))?.item.content as Array<{ text: string }>)[0].text).toBe('first');
  });

  it('batches added back to back list in the order they were added, within a millisecond too', async () => {
    const conv = uid('conv');
    await store.createConversation({ id: conv, createdAt: NOW, metadata: {} }, [item(uid('msg'), 'a0')]);
    // Forty small batches as fast as the store takes them: many share a clock millisecond.
    for (let b = 1; b <= 40; b++) await store.addItems(conv, [item(uid('msg'), `a${b}x`), item(uid('msg'), `a${b}y`)]);
    const texts = (await store.listItems(conv, { limit: 100, order: 'asc' })).items.map((i) => (i.item.content as Array<{ text: string }>)[0].text);
    expect(texts).toEqual(['a0', ...Array.from({ length: 40 }, (_, k) => [`a${k + 1}x`, `a${k + 1}y`]).flat()]);
  });

  it('conversation items keep the order they were added in and page with after, both ways', async () => {
    const conv = uid('conv');
    const first = [item(uid('msg'), '1'), item(uid('msg'), '2')];
    await store.createConversation({ id: conv, createdAt: NOW, metadata: { k: 'v' } }, first);
    const turn = [item(uid('msg'), '3'), item(uid('msg'), '4', 'assistant')];
    await store.putResponse(response(uid('resp'), null, conv, [turn[0]]), turn);
    await store.addItems(conv, [item(uid('msg'), '5')]);
    const text = (p: { items: StoredItem[] }) => p.items.map((i) => (i.item.content as Array<{ text: string }>)[0].text).join('');

    expect(text(await store.listItems(conv, { limit: 100, order: 'asc' }))).toBe('12345');
    const p1 = await store.listItems(conv, { limit: 2, order: 'desc' });
    expect([text(p1), p1.hasMore]).toEqual(['54', true]);
    const p2 = await store.listItems(conv, { limit: 2, order: 'desc', after: p1.items[1].id });
    expect([text(p2), p2.hasMore]).toEqual(['32', true]);
    const p3 = await store.listItems(conv, { limit: 2, order: 'desc', after: p2.items[1].id });
    expect([text(p3), p3.hasMore]).toEqual(['1', false]);
    const a2 = await store.listItems(conv, { limit: 3, order: 'asc', after: first[0].id });
    expect([text(a2), a2.hasMore]).toEqual(['234', true]);

    expect(await store.getLinkedItem(conv, turn[1].id)).toMatchObject({ id: turn[1].id });
    expect(await store.unlinkItem(conv, turn[1].id)).toBe(true);
    expect(await store.unlinkItem(conv, turn[1].id)).toBe(false);
    expect(await store.getLinkedItem(conv, turn[1].id)).toBeNull();
    // Unlinked, not deleted: an item_reference still finds it.
    expect(await store.getItem(turn[1].id)).not.toBeNull();
    expect(text(await store.listItems(conv, { limit: 100, order: 'asc' }))).toBe('1235');
  });

  it('conversations: metadata update, delete', async () => {
    const conv = uid('conv');
    await store.createConversation({ id: conv, createdAt: NOW, metadata: null }, []);
    expect(await store.getConversation(conv)).toEqual({ id: conv, createdAt: NOW, metadata: null });
    expect(await store.updateConversation(conv, { a: 'b' })).toEqual({ id: conv, createdAt: NOW, metadata: { a: 'b' } });
    expect(await store.updateConversation('conv_unknown', { a: 'b' })).toBeNull();
    expect(await store.deleteConversation(conv)).toBe(true);
    expect(await store.getConversation(conv)).toBeNull();
    expect(await store.deleteConversation(conv)).toBe(false);
  });
});

describe('memory bounds', () => {
  it('the LRU drops the least recently used entries past either bound', () => {
    const evicted: string[] = [];
    const lru = new Lru<number>(3, 100, (k) => evicted.push(k));
    lru.set('a', 1, 10);
    lru.set('b', 2, 10);
    lru.set('c', 3, 10);
    lru.get('a');
    lru.set('d', 4, 10); // 4 entries > 3: b is the least recently used
    expect(evicted).toEqual(['b']);
    lru.set('e', 5, 80); // 110 bytes > 100: c goes, a + d + e = 100 bytes fit
    expect(evicted).toEqual(['b', 'c']);
    expect([lru.size, lru.bytes]).toEqual([3, 100]);
    lru.set('f', 6, 200); // bigger than the whole budget: not kept at all
    expect(lru.has('f')).toBe(false);
    expect(lru.bytes).toBeLessThanOrEqual(100);
  });

  it('a memory store never holds more than its limits, and keeps what was used last', async () => {
    const store = new MemoryHistoryStore({ maxEntries: 50, maxBytes: 20_000 });
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const id = `resp_${i}`;
      ids.push(id);
      const q = item(`msg_${i}`, 'x'.repeat(100));
      await store.putResponse(response(id, i > 0 ? `resp_${i - 1}` : null, null, [q]), [q]);
      // The first response stays warm: read on every turn.
      expect(await store.getResponse('resp_0')).not.toBeNull();
      const { entries, bytes } = store.usage();
      expect(entries).toBeLessThanOrEqual(50);
      expect(bytes).toBeLessThanOrEqual(20_000);
    }
    expect(await store.getResponse('resp_199')).not.toBeNull();
    expect(await store.getResponse('resp_100')).toBeNull();
    expect(await store.getResponse('resp_0')).not.toBeNull();
    // The chain of the newest turn ends where the evicted ones begin.
    const chain = await store.chain('resp_199', 1000);
    expect(chain.length).toBeGreaterThan(1);
    expect(chain.length).toBeLessThan(50);
  });
});

describe('postgres', () => {
  it('creates the schema, records SMG migrations 1-3 once, and a second store on the same database starts cleanly', async () => {
    const a = postgres();
    await a.start();
    const b = postgres();
    await b.start();
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      const versions = await c.query('SELECT version FROM _schema_versions ORDER BY version');
      expect(versions.rows.map((r) => r.version)).toEqual([1, 2, 3]);
      const cols = await c.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'responses' ORDER BY ordinal_position");
      expect(cols.rows.map((r) => r.column_name)).toEqual(['id', 'conversation_id', 'previous_response_id', 'input', 'created_at', 'safety_identifier', 'model', 'raw_response']);
      // A turn written by one store is read by the other (two gateways on one database).
      const id = uid('resp');
      await a.putResponse(response(id, null), []);
      expect((await b.getResponse(id))?.id).toBe(id);
    } finally {
      await c.end();
    }
  });

  it('migrates a database an older SMG created (user_id, output, metadata, instructions, tool_calls columns; no safety_identifier)', async () => {
    const old = await startPgServer();
    const c = new pg.Client({ connectionString: old.url });
    await c.connect();
    const s = new PostgresHistoryStore({ url: old.url, poolMax: 1, logger: silentLogger() });
    try {
      await c.query(`CREATE TABLE responses (id VARCHAR(64) PRIMARY KEY, conversation_id VARCHAR(64), previous_response_id VARCHAR(64),
        input JSON, instructions TEXT, output JSON, tool_calls JSON, metadata JSON, created_at TIMESTAMPTZ, user_id VARCHAR(128), model VARCHAR(128), raw_response JSON)`);
      await c.query(`INSERT INTO responses (id, input, raw_response, user_id) VALUES ('resp_old', '[]', '{"id":"resp_old","output":[]}', 'u1')`);
      await s.start();
      const cols = await c.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'responses' ORDER BY column_name");
      expect(cols.rows.map((r) => r.column_name)).toEqual(['conversation_id', 'created_at', 'id', 'input', 'model', 'previous_response_id', 'raw_response', 'safety_identifier']);
      expect((await c.query('SELECT version FROM _schema_versions ORDER BY version')).rows.map((r) => r.version)).toEqual([1, 2, 3]);
      // The old rows are still there and readable.
      expect((await s.getResponse('resp_old'))?.raw).toEqual({ id: 'resp_old', output: [] });
    } finally {
      await c.end();
      await s.close();
      await old.close();
    }
  }, 120_000);

  it('a turn is written all or nothing', async () => {
    const s = postgres();
    const id = uid('resp');
    await s.putResponse(response(id, null), []);
    const fresh = item(uid('msg'), 'lost');
    // The same response id again: the transaction fails, and the item it carried is not kept.
    await expect(s.putResponse(response(id, null), [fresh])).rejects.toThrow(/duplicate key/);
    expect(await s.getItem(fresh.id)).toBeNull();
  });

  it('a database outage is HistoryUnavailableError, and the pool reconnects once it is back', async () => {
    const s = postgres();
    const id = uid('resp');
    await s.putResponse(response(id, null), []);
    await server.stop();
    try {
      await expect(s.getResponse(id)).rejects.toBeInstanceOf(HistoryUnavailableError);
      await expect(s.getResponse(id)).rejects.toBeInstanceOf(HistoryUnavailableError);
    } finally {
      await server.start();
    }
    expect((await s.getResponse(id))?.id).toBe(id);
  });
});
