/** Hono environment of the main app: per-request variables set by middleware. */
export interface AppEnv {
  Variables: { requestId: string };
}
