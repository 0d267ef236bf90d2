/**
 * `--history-backend postgres`: SMG's tables (postgres-schema.ts) through a `pg` pool of at most
 * `--postgres-pool-max` connections. A turn's rows (response, items, links) go in one statement of
 * data-modifying CTEs: one round trip, and one transaction, so all or nothing; deleting a
 * conversation (two statements) runs in an explicit transaction.
 * The database may come and go: the schema is prepared on first use (and retried until it works),
 * a connection that fails is dropped from the pool, and every failure to reach the database
 * surfaces as HistoryUnavailableError (the API answers 503) while the pool reconnects by itself on
 * the next request.
 */
import pg from 'pg';
import type { Logger } from '../util/logger.js';
import { migrate } from './postgres-schema.js';
import {
  HistoryUnavailableError,
  type HistoryStore,
  type ItemPage,
  type Json,
  type ListParams,
  type StoredConversation,
  type StoredItem,
  type StoredResponse,
} from './types.js';

export interface PostgresOptions {
  url: string;
  poolMax: number;
  logger: Logger;
  /** Wait for a connection (pool full or database slow to accept). */
  connectTimeoutMs?: number;
  /** A query that takes longer fails (the database hung). */
  queryTimeoutMs?: number;
}


const RESPONSE_COLUMNS = `id, conversation_id, previous_response_id, input, raw_response, model, EXTRACT(EPOCH FROM created_at)::float8 AS created`;
const ITEM_COLUMNS = `i.id, i.response_id, i.item_type, i.role, i.content, i.status, EXTRACT(EPOCH FROM i.created_at)::float8 AS created`;

interface ResponseRow {
  id: string;
  conversation_id: string | null;
  previous_response_id: string | null;
  input: Json[] | null;
  raw_response: Json;
  model: string | null;
  created: number | null;
}

interface ItemRow {
  id: string;
  response_id: string | null;
  item_type: string;
  role: string | null;
  content: unknown;
  status: string | null;
  created: number | null;
}

/**
 * SQLSTATE classes that mean "the database is not there right now" (08 connection exception,
 * 53 insufficient resources, 57P operator intervention such as a shutdown); errors with no
 * SQLSTATE come from the socket or the pool (refused, reset, timeout) and mean the same.
 */
function isOutage(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('53') || code.startsWith('57P');
}

const epoch = (v: number | null) => Math.floor(v ?? 0);

function responseOf(r: ResponseRow): StoredResponse {
  return {
    id: r.id,
    previousResponseId: r.previous_response_id,
    conversationId: r.conversation_id,
    input: r.input ?? [],
    raw: r.raw_response,
    model: r.model ?? '',
    createdAt: epoch(r.created),
  };
}

/** SMG keeps a message's content array in `content` and every other item whole (conversations/handlers.rs parse_item_from_value). */
function itemOf(r: ItemRow): StoredItem {
  const item: Json =
    r.item_type === 'message'
      ? { id: r.id, type: 'message', ...(r.status ? { status: r.status } : {}), role: r.role ?? 'user', content: r.content ?? [] }
      : { ...(r.content as Json), id: r.id, type: r.item_type };
  return { id: r.id, responseId: r.response_id, item, createdAt: epoch(r.created) };
}

function itemColumns(it: StoredItem): unknown[] {
  const type = typeof it.item.type === 'string' ? it.item.type : 'message';
  const role = typeof it.item.role === 'string' ? it.item.role : null;
  const status = typeof it.item.status === 'string' ? it.item.status : null;
  const content = type === 'message' ? (it.item.content ?? []) : it.item;
  return [it.id, it.responseId, type, role, content, status, it.createdAt];
}

/**
 * The items of a write as one JSON parameter, inserted with json_to_recordset; an id already
 * stored keeps its first row (a client may send an earlier output item back as input).
 */
const ITEMS_CTE = (param: string) => `items AS (
  INSERT INTO conversation_items (id, response_id, item_type, role, content, status, created_at)
  SELECT x.id, x.response_id, x.item_type, x.role, x.content, x.status, to_timestamp(x.created_at)
  FROM json_to_recordset(${param}::json) AS x(id text, response_id text, item_type text, role text, content json, status text, created_at float8)
  ON CONFLICT (id) DO NOTHING
)`;

/**
 * Links in the given order: each item one microsecond after the one before, and the batch after the
 * conversation's last link even when the clock has not moved on since (PGlite's clock_timestamp()
 * ticks in milliseconds: a batch added within the same millisecond as the one before it listed
 * before that batch's last item, '12354'), so a conversation lists its items in the order they
 * were added. Two batches written at the same moment may still tie; ties order by item id.
 */
const LINKS_INSERT = (conversation: string, ids: string) => `INSERT INTO conversation_item_links (conversation_id, item_id, added_at)
  SELECT ${conversation}, t.item_id, base.at + (t.ord * interval '1 microsecond')
  FROM unnest(${ids}::text[]) WITH ORDINALITY AS t(item_id, ord),
    (SELECT GREATEST(clock_timestamp(), COALESCE(
       (SELECT max(added_at) FROM conversation_item_links WHERE conversation_id = ${conversation}), '-infinity'::timestamptz)) AS at) AS base
  ON CONFLICT (conversation_id, item_id) DO NOTHING`;

function itemRows(items: StoredItem[]): string {
  const seen = new Set<string>();
  return JSON.stringify(
    items
      .filter((it) => !seen.has(it.id) && seen.add(it.id))
      .map((it) => {
        const [id, responseId, type, role, content, status, createdAt] = itemColumns(it);
        return { id, response_id: responseId, item_type: type, role, content, status, created_at: createdAt };
      }),
  );
}

const linkIds = (items: StoredItem[]) => [...new Set(items.map((it) => it.id))];

export class PostgresHistoryStore implements HistoryStore {
  readonly backend = 'postgres';
  private readonly pool: pg.Pool;
  private readonly log: Logger;
  private schema: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly opts: PostgresOptions) {
    this.log = opts.logger;
    this.pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolMax,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
      query_timeout: opts.queryTimeoutMs ?? 15_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection the server closed: the pool drops it; without a listener it would crash the process.
    this.pool.on('error', (err) => this.log.warn(`history store (postgres): idle connection lost: ${err.message}`));
  }

  async start(): Promise<void> {
    try {
      await this.ready();
      this.log.info(`History store: postgres (pool max ${this.opts.poolMax}), schema ready`);
    } catch (err) {
      this.log.error(`History store: postgres is unreachable at start (${(err as Error).message}); requests that need it get 503 until it answers`);
    }
  }

  async putResponse(response: StoredResponse, items: StoredItem[]): Promise<void> {
    // One statement, so one round trip and all or nothing: the response row, its items, their links.
    await this.query(
      `WITH response AS (
         INSERT INTO responses (id, conversation_id, previous_response_id, input, created_at, model, raw_response)
         VALUES ($1, $2, $3, $4::json, to_timestamp($5), $6, $7::json)
       ), ${ITEMS_CTE('$8')}
       ${LINKS_INSERT('$2', '$9')}`,
      [
        response.id,
        response.conversationId,
        response.previousResponseId,
        JSON.stringify(response.input),
        response.createdAt,
        response.model,
        JSON.stringify(response.raw),
        itemRows(items),
        response.conversationId ? linkIds(items) : [],
      ],
    );
  }

  async getResponse(id: string): Promise<StoredResponse | null> {
    const { rows } = await this.query<ResponseRow>(`SELECT ${RESPONSE_COLUMNS} FROM responses WHERE id = $1`, [id]);
    return rows[0] ? responseOf(rows[0]) : null;
  }

  async chain(id: string, maxDepth: number): Promise<StoredResponse[]> {
    // One round trip for the whole chain, however long.
    const { rows } = await this.query<ResponseRow & { depth: number }>(
      `WITH RECURSIVE chain AS (
         SELECT r.*, 0 AS depth FROM responses r WHERE r.id = $1
         UNION ALL
         SELECT r.*, chain.depth + 1 FROM responses r JOIN chain ON r.id = chain.previous_response_id WHERE chain.depth + 1 < $2
       )
       SELECT ${RESPONSE_COLUMNS}, depth FROM chain ORDER BY depth DESC`,
      [id, maxDepth],
    );
    return rows.map(responseOf);
  }

  async deleteResponse(id: string): Promise<boolean> {
    const { rowCount } = await this.query('DELETE FROM responses WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  async getItem(id: string): Promise<StoredItem | null> {
    const { rows } = await this.query<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM conversation_items i WHERE i.id = $1`, [id]);
    return rows[0] ? itemOf(rows[0]) : null;
  }

  async createConversation(conv: StoredConversation, items: StoredItem[]): Promise<void> {
    await this.query(
      `WITH conversation AS (
         INSERT INTO conversations (id, created_at, metadata) VALUES ($1, to_timestamp($2), $3::json)
       ), ${ITEMS_CTE('$4')}
       ${LINKS_INSERT('$1', '$5')}`,
      [conv.id, conv.createdAt, conv.metadata === null ? null : JSON.stringify(conv.metadata), itemRows(items), linkIds(items)],
    );
  }

  async getConversation(id: string): Promise<StoredConversation | null> {
    const { rows } = await this.query<{ id: string; created: number; metadata: Record<string, unknown> | null }>(
      'SELECT id, EXTRACT(EPOCH FROM created_at)::float8 AS created, metadata FROM conversations WHERE id = $1',
      [id],
    );
    return rows[0] ? { id: rows[0].id, createdAt: epoch(rows[0].created), metadata: rows[0].metadata } : null;
  }

  async updateConversation(id: string, metadata: Record<string, unknown> | null): Promise<StoredConversation | null> {
    const { rows } = await this.query<{ id: string; created: number; metadata: Record<string, unknown> | null }>(
      'UPDATE conversations SET metadata = $2::json WHERE id = $1 RETURNING id, EXTRACT(EPOCH FROM created_at)::float8 AS created, metadata',
      [id, metadata === null ? null : JSON.stringify(metadata)],
    );
    return rows[0] ? { id: rows[0].id, createdAt: epoch(rows[0].created), metadata: rows[0].metadata } : null;
  }

  async deleteConversation(id: string): Promise<boolean> {
    return this.tx(async (c) => {
      await c.query('DELETE FROM conversation_item_links WHERE conversation_id = $1', [id]);
      const { rowCount } = await c.query('DELETE FROM conversations WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    });
  }

  async addItems(conversationId: string, items: StoredItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.query(`WITH ${ITEMS_CTE('$2')} ${LINKS_INSERT('$1', '$3')}`, [conversationId, itemRows(items), linkIds(items)]);
  }

  async listItems(conversationId: string, params: ListParams): Promise<ItemPage> {
    const asc = params.order === 'asc';
    const args: unknown[] = [conversationId, params.limit + 1];
    let cursor = '';
    if (params.after !== undefined) {
      args.push(params.after);
      // Row comparison on (added_at, item_id): items added in one batch share no timestamp (link()), ties still order.
      cursor = `AND (l.added_at, l.item_id) ${asc ? '>' : '<'} (SELECT added_at, item_id FROM conversation_item_links WHERE conversation_id = $1 AND item_id = $3)`;
    }
    const dir = asc ? 'ASC' : 'DESC';
    const { rows } = await this.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM conversation_item_links l JOIN conversation_items i ON i.id = l.item_id
       WHERE l.conversation_id = $1 ${cursor} ORDER BY l.added_at ${dir}, l.item_id ${dir} LIMIT $2`,
      args,
    );
    return { items: rows.slice(0, params.limit).map(itemOf), hasMore: rows.length > params.limit };
  }

  async getLinkedItem(conversationId: string, itemId: string): Promise<StoredItem | null> {
    const { rows } = await this.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM conversation_item_links l JOIN conversation_items i ON i.id = l.item_id WHERE l.conversation_id = $1 AND l.item_id = $2`,
      [conversationId, itemId],
    );
    return rows[0] ? itemOf(rows[0]) : null;
  }

  async unlinkItem(conversationId: string, itemId: string): Promise<boolean> {
    const { rowCount } = await this.query('DELETE FROM conversation_item_links WHERE conversation_id = $1 AND item_id = $2', [conversationId, itemId]);
    return (rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private ready(): Promise<void> {
    this.schema ??= (async () => {
      const c = await this.checkout();
      try {
        const applied = await migrate(c);
        if (applied.length > 0) this.log.info(`History store (postgres): applied schema migrations ${applied.join(', ')}`);
        c.release();
      } catch (err) {
        c.release(true);
        throw err;
      }
    })().catch((err: unknown) => {
      // Retried by the next request.
      this.schema = null;
      throw err;
    });
    return this.schema;
  }

  /**
   * A connection of our own for several statements. The pool only listens for errors on idle
   * connections: one that drops while checked out would emit an unhandled 'error' and end the
   * process, so it gets a listener until it is released (the failing query rejects anyway).
   */
  private async checkout(): Promise<pg.PoolClient> {
    const c = await this.pool.connect();
    const onError = (err: Error) => this.log.warn(`history store (postgres): connection lost: ${err.message}`);
    c.on('error', onError);
    const release = c.release.bind(c);
    c.release = (err?: boolean | Error) => {
      c.off('error', onError);
      release(err);
    };
    return c;
  }

  private async query<R extends pg.QueryResultRow>(sql: string, args: unknown[]): Promise<pg.QueryResult<R>> {
    return this.guard(async () => {
      await this.ready();
      return this.pool.query<R>(sql, args);
    });
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      await this.ready();
      const c = await this.checkout();
      try {
        await c.query('BEGIN');
        const out = await fn(c);
        await c.query('COMMIT');
        c.release();
        return out;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        // A connection that failed mid-transaction is not given back to the pool.
        c.release(isOutage(err) ? true : undefined);
        throw err;
      }
    });
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (this.closed) throw new HistoryUnavailableError('history store is closed');
      if (isOutage(err)) throw new HistoryUnavailableError(`postgres: ${(err as Error).message || String(err)}`);
      throw err;
    }
  }
}
