/**
 * Responses that carry an upstream's own answer. The gateway re-encodes its own error responses
 * in each protocol's envelope (gateway/app.ts); an upstream's status and error body must reach the
 * client as the upstream sent them (a vLLM error has a numeric `code` the envelope check would
 * rewrite), so those responses are marked and the re-encoding passes them by.
 */
const forwarded = new WeakSet<Response>();

export function markForwarded(res: Response): Response {
  forwarded.add(res);
  return res;
}

export function isForwarded(res: Response): boolean {
  return forwarded.has(res);
}
