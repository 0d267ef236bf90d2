/**
 * What a handler learns about one request that the access log line reports (gateway/middleware/
 * access-log.ts): the worker that served it, its token counts, and notes such as tools that were
 * dropped. Keyed by the request object the route hands the handler, so neither side imports the
 * other's types and a request that never reaches a handler simply has no record.
 */
export interface RequestRecord {
  /** Worker id and URL that generated the answer. */
  worker?: string;
  promptTokens?: number;
  completionTokens?: number;
  /** Things the client should know were not done as asked (dropped hosted tools, …). */
  notes: string[];
}

/** Keyed by the request object the handler got (a web Request, or the direct front's). */
const records = new WeakMap<object, RequestRecord>();

/** The request's record, created on first use. */
export function requestRecord(req: object): RequestRecord {
  let r = records.get(req);
  if (!r) records.set(req, (r = { notes: [] }));
  return r;
}

/** The record if a handler wrote one. */
export function peekRequestRecord(req: object): RequestRecord | undefined {
  return records.get(req);
}

/**
 * `copy` (a request rebuilt from `original`'s body, e.g. by the HTTP-worker fork) writes to the
 * same record the access log reads from `original`.
 */
export function shareRequestRecord(original: object, copy: object): void {
  if (copy !== original) records.set(copy, requestRecord(original));
}
