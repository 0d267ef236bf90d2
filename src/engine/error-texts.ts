/**
 * Texts requests see when the engine connection fails (smg-newest §2.9, request-pipeline §14.3).
 * The gateway maps them to HTTP by EngineError.kind; these exact strings are part of the
 * user-facing contract.
 */
import { formatSeconds } from './format-seconds.js';

/** In flight when the engine died by the sentinel, silence or a failed input send (spec text). */
export const ENGINE_DEAD_TEXT = 'engine core reported fatal failure';
/** Submit after the client died or was closed; in flight at close(). */
export const CLIENT_CLOSED_TEXT = 'engine ZMQ client is closed: client is shutting down';
/** The output socket went away underneath the reader. */
export const OUTPUT_ENDED_TEXT = 'engine ZMQ client is closed: engine output stream ended';

/**
 * Ours (SMG has no disconnect rule): an engine's connection to the input ROUTER closed. vLLM
 * closes it when the process exits and when its input thread dies on a message it cannot decode
 * (wire-vllm §3.9), so both are named.
 */
export const ENGINE_INPUT_DISCONNECTED_TEXT =
  'engine disconnected: an engine closed its input connection (its process exited or its input thread died)';
/** Ours: an engine's PUSH left the output PULL, which only happens when its process goes away. */
export const ENGINE_OUTPUT_DISCONNECTED_TEXT = 'engine disconnected: an engine closed its output connection (its process exited)';

/**
 * Ours: requests waited without output and the engine did not answer the liveness UTILITY call.
 * The reply needs the engine's input thread (which decodes it) and its busy loop (which runs it).
 */
export function inputUnresponsiveText(method: string, timeoutMs: number): string {
  return `engine input thread unresponsive: no reply to ${method} within ${formatSeconds(timeoutMs)}`;
}

/** An unknown thrown value as log/error text. */
export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The errno-style `code` of a thrown value (zeromq and fs errors carry one). */
export function errCode(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}
