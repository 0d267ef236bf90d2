/**
 * Why an engine client latched dead, as data. Requests only see the EngineError text; a supervisor
 * needs the cause too, because some deaths leave the engine process running (a dead input
 * thread, a hung busy loop) and such an engine never dials back in until it is killed.
 */
import { EngineError, type EngineErrorKind } from './client-types.js';

export type EngineDeathCause =
  /** ENGINE_CORE_DEAD on the output socket; the engine exits by itself. */
  | 'sentinel'
  /** An engine's connection to the input or output socket closed. */
  | 'disconnect'
  /** No reply to the liveness UTILITY call while requests waited without output. */
  | 'input_unresponsive'
  /** No output at all for the silence timeout with requests in flight. */
  | 'silence'
  /** An input send timed out or found the engine unreachable. */
  | 'send_failure'
  /** Three undecodable output messages in a row. */
  | 'decode'
  /** The output socket failed. */
  | 'transport'
  /** The output socket was closed underneath the reader. */
  | 'output_ended';

export class EngineDeathError extends EngineError {
  constructor(
    kind: EngineErrorKind,
    message: string,
    readonly deathCause: EngineDeathCause,
  ) {
    super(kind, message);
  }
}

/** The cause carried by `err`; `external` for a death declared outside the client (launcher). */
export function deathCauseOf(err: EngineError): EngineDeathCause | 'external' {
  return err instanceof EngineDeathError ? err.deathCause : 'external';
}
