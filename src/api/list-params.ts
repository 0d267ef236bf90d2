/**
 * OpenAI's cursor pagination for item lists (GET /v1/responses/{id}/input_items and
 * GET /v1/conversations/{id}/items): `limit` 1..100 (default 20), `order` asc|desc (default desc),
 * `after` an item id; the answer is `{object: "list", data, first_id, last_id, has_more}`.
 */
import type { ListParams } from '../history/types.js';
import { invalid } from '../pipeline/errors.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export function listParams(query: URLSearchParams): ListParams {
  const rawLimit = query.get('limit');
  let limit = DEFAULT_LIMIT;
  if (rawLimit !== null) {
    limit = /^\d+$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) throw invalid(`limit: must be an integer from 1 to ${MAX_LIMIT}, got '${rawLimit}'`, 'limit');
  }
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw invalid(`order: must be asc or desc, got '${order}'`, 'order');
  const after = query.get('after') ?? undefined;
  return { limit, order, after: after === '' ? undefined : after };
}

export interface ListBody {
  object: 'list';
  data: Record<string, unknown>[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export function listBody(data: Record<string, unknown>[], hasMore: boolean): ListBody {
  const id = (v: Record<string, unknown> | undefined) => (typeof v?.id === 'string' ? v.id : null);
  return { object: 'list', data, first_id: id(data[0]), last_id: id(data[data.length - 1]), has_more: hasMore };
}

/** One page of an in-memory list (a response's input items), in `params` order after `params.after`. */
export function pageOf<T extends { id?: unknown }>(items: readonly T[], params: ListParams): { page: T[]; hasMore: boolean } {
  const ordered = params.order === 'asc' ? [...items] : [...items].reverse();
  let start = 0;
  if (params.after !== undefined) {
    const at = ordered.findIndex((it) => it.id === params.after);
    start = at === -1 ? ordered.length : at + 1;
  }
  const page = ordered.slice(start, start + params.limit);
  return { page, hasMore: start + params.limit < ordered.length };
}
