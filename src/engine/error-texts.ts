/**
 * Texts requests see when the engine connection fails (smg-newest §2.9). The gateway maps them to
 * HTTP by EngineError.kind; these exact strings are part of the user-facing contract.
 */

/** In flight when the engine died (sentinel, silence, send failure, disconnect). */
export const ENGINE_DEAD_TEXT = 'engine core reported fatal failure';
/** Submit after the client died or was closed; in flight at close(). */
export const CLIENT_CLOSED_TEXT = 'engine ZMQ client is closed: client is shutting down';
/** The output socket went away underneath the reader. */
export const OUTPUT_ENDED_TEXT = 'engine ZMQ client is closed: engine output stream ended';

/** An unknown thrown value as log/error text. */
export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The errno-style `code` of a thrown value (zeromq and fs errors carry one). */
export function errCode(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}
