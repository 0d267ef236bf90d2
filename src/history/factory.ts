/** The history store a gateway runs with, from `--history-backend` and the postgres flags. */
import type { Logger } from '../util/logger.js';
import { MemoryHistoryStore } from './memory.js';
import { NoHistoryStore } from './none.js';
import { PostgresHistoryStore } from './postgres.js';
import type { HistoryBackend, HistoryStore } from './types.js';

export interface HistoryConfig {
  historyBackend: HistoryBackend;
  postgresDbUrl: string | null;
  postgresPoolMax: number;
}

export function createHistoryStore(cfg: HistoryConfig, logger: Logger): HistoryStore {
  switch (cfg.historyBackend) {
    case 'none':
      return new NoHistoryStore();
    case 'postgres':
      if (!cfg.postgresDbUrl) throw new Error('--history-backend postgres needs --postgres-db-url');
      return new PostgresHistoryStore({ url: cfg.postgresDbUrl, poolMax: cfg.postgresPoolMax, logger });
    case 'memory':
      return new MemoryHistoryStore();
  }
}

/**
 * SMG's PostgresConfig::validate (crates/data_connector/src/config.rs): a postgres:// or
 * postgresql:// URL with a host and a database name, and a pool of at least one connection.
 * Returns the problem, or null.
 */
export function historyConfigProblem(cfg: HistoryConfig): string | null {
  if (cfg.historyBackend !== 'postgres') return null;
  const raw = cfg.postgresDbUrl?.trim() ?? '';
  if (raw === '') return '--history-backend postgres needs --postgres-db-url';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `invalid --postgres-db-url '${raw}'`;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return `unsupported --postgres-db-url scheme: ${url.protocol.slice(0, -1)}`;
  if (url.hostname === '') return '--postgres-db-url must have a host';
  if (url.pathname.replace(/^\//, '') === '') return '--postgres-db-url must include a database name';
  if (cfg.postgresPoolMax < 1) return '--postgres-pool-max must be greater than 0';
  return null;
}
