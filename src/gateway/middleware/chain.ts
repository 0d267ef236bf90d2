/**
 * Pass-through layers run as one Hono middleware. Each layer Hono composes costs an async dispatch
 * frame, an await and a closure per request; the intake checks (drain gate, body limit, body
 * budget) either answer at once or pass the request on, so they are called here one inside the
 * next with no frame between them.
 *
 * Only for layers that return `next()`'s promise (or one settling with its value): a refusal
 * returned by an inner layer then reaches Hono as the fused layer's own return value, which Hono
 * makes the response exactly as it did when that layer was composed on its own.
 */
import type { Env, MiddlewareHandler, Next } from 'hono';

export function passThroughChain<E extends Env>(...layers: MiddlewareHandler<E>[]): MiddlewareHandler<E> {
  const [first, ...rest] = layers;
  if (rest.length === 0) return first;
  const inner = passThroughChain(...rest);
  return (c, next) => first(c, (() => inner(c, next)) as Next);
}
