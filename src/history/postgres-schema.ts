/**
 * The PostgreSQL schema, as SMG's data connector creates it (smg-project/smg
 * crates/data_connector/src/postgres.rs: the `CREATE TABLE IF NOT EXISTS` of each storage;
 * postgres_migrations.rs: migrations 1–3; versioning.rs: the `_schema_versions` table and the
 * advisory lock that serializes gateways starting together), so an SMG deployment's database
 * and ours are the same tables:
 *
 * - responses (id PK, conversation_id, previous_response_id, input JSON, created_at,
 *   safety_identifier, model, raw_response JSON)
 * - conversations (id PK, created_at, metadata JSON)
 * - conversation_items (id PK, response_id, item_type, role, content JSON, status, created_at)
 * - conversation_item_links (conversation_id, item_id, added_at; PK (conversation_id, item_id);
 *   index (conversation_id, added_at))
 *
 * The tables are created in their migrated shape; the migrations still run (each idempotent) on a
 * database an older release created, and each applied version is recorded.
 */
import type { PoolClient } from 'pg';

export const CREATE_TABLES = `
CREATE TABLE IF NOT EXISTS responses (
  id VARCHAR(64) PRIMARY KEY,
  conversation_id VARCHAR(64),
  previous_response_id VARCHAR(64),
  input JSON,
  created_at TIMESTAMPTZ,
  safety_identifier VARCHAR(128),
  model VARCHAR(128),
  raw_response JSON
);
CREATE TABLE IF NOT EXISTS conversations (
  id VARCHAR(64) PRIMARY KEY,
  created_at TIMESTAMPTZ,
  metadata JSON
);
CREATE TABLE IF NOT EXISTS conversation_items (
  id VARCHAR(64) PRIMARY KEY,
  response_id VARCHAR(64),
  item_type VARCHAR(32) NOT NULL,
  role VARCHAR(32),
  content JSON,
  status VARCHAR(32),
  created_at TIMESTAMPTZ
);
CREATE TABLE IF NOT EXISTS conversation_item_links (
  conversation_id VARCHAR(64),
  item_id VARCHAR(64) NOT NULL,
  added_at TIMESTAMPTZ,
  CONSTRAINT pk_conv_item_link PRIMARY KEY (conversation_id, item_id)
);
CREATE INDEX IF NOT EXISTS conv_item_links_conv_idx ON conversation_item_links (conversation_id, added_at);
CREATE TABLE IF NOT EXISTS _schema_versions (
  version INTEGER NOT NULL PRIMARY KEY,
  description VARCHAR(512),
  applied_at TIMESTAMPTZ NOT NULL DEFAULT NOW()
);
`;

interface Migration {
  version: number;
  description: string;
  up: string[];
}

/** SMG's POSTGRES_HISTORY_MIGRATIONS, in order. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'Add safety_identifier column to responses', up: ['ALTER TABLE responses ADD COLUMN IF NOT EXISTS safety_identifier VARCHAR(128)'] },
  { version: 2, description: 'Remove legacy user_id column from responses', up: ['ALTER TABLE responses DROP COLUMN IF EXISTS user_id'] },
  {
    version: 3,
    description: 'Drop redundant output, metadata, instructions, tool_calls columns from responses',
    up: ['ALTER TABLE responses DROP COLUMN IF EXISTS output, DROP COLUMN IF EXISTS metadata, DROP COLUMN IF EXISTS instructions, DROP COLUMN IF EXISTS tool_calls'],
  },
];

/** SMG's MIGRATION_LOCK_ID, "smg_migr" as a bigint. */
const MIGRATION_LOCK_ID = '8317138426548104562';

/** Creates the tables and applies the pending migrations, one gateway at a time. */
export async function migrate(client: PoolClient): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_ID]);
  try {
    await client.query(CREATE_TABLES);
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM _schema_versions')).rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        for (const sql of m.up) await client.query(sql);
        await client.query('INSERT INTO _schema_versions (version, description) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING', [m.version, m.description]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
      applied.push(m.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_ID]).catch(() => {});
  }
}
