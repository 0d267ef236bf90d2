/**
 * Which methods a path is served with, from the app's route table, so a request with the wrong
 * method can be told 405 (and which method to use) instead of an unexplained 404.
 */
import type { RouterRoute } from 'hono/types';

export interface RouteMisses {
  /** Methods registered for `path` (empty when no route has that path). */
  allowedMethods(path: string): string[];
}

/** Hono's `:param` segments as one path segment each; `*` as anything. */
function pathPattern(path: string): RegExp {
  const body = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/** `routes` is read on each call: routes registered after this is built still count. */
export function routeMisses(routes: readonly RouterRoute[]): RouteMisses {
  let cached: { count: number; table: Array<{ method: string; re: RegExp }> } | null = null;
  const table = () => {
    if (cached?.count !== routes.length) {
      // Middleware (`ALL`) matches every method and says nothing about which ones a path serves.
      const handlers = routes.filter((r) => r.method !== 'ALL');
      cached = { count: routes.length, table: handlers.map((r) => ({ method: r.method, re: pathPattern(r.path) })) };
    }
    return cached.table;
  };
  return {
    allowedMethods(path) {
      const out: string[] = [];
      for (const r of table()) if (r.re.test(path) && !out.includes(r.method)) out.push(r.method);
      return out;
    },
  };
}
