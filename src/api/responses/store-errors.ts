/**
 * History-store failures as API errors: the database unreachable is a 503 that says so (the
 * request needed the store; every other request is unaffected), anything else a 500.
 */
import { HistoryUnavailableError } from '../../history/types.js';
import { PipelineError } from '../../pipeline/errors.js';

export function storeError(err: unknown): PipelineError {
  if (err instanceof PipelineError) return err;
  if (err instanceof HistoryUnavailableError) {
    return new PipelineError(503, 'history_unavailable', `History store unavailable: ${err.message}; retry when the database is back`);
  }
  return new PipelineError(500, 'storage_error', `History store failed: ${(err as Error).message}`);
}

/** Runs one store call, its failure as the API error. */
export async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storeError(err);
  }
}
