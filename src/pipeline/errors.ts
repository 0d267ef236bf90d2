/**
 * The one error type of the request pipeline: an HTTP status, a snake_case code, the message the
 * client reads, and the request field it concerns. It knows no envelope: each protocol front-end
 * (`src/api/<protocol>/errors.ts`) encodes it in its own error shape.
 */
import { EngineError } from '../engine/client-types.js';

export class PipelineError extends Error {
  override name = 'PipelineError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /**
     * A request-validation failure (OpenAI answers these with its `invalid_request_error`
     * envelope, request-pipeline §2.2(1–2)), as opposed to a gateway/pipeline failure (§2.2(3)).
     */
    readonly validation = false,
    /** The request field at fault, when known (OpenAI's `param`). */
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/**
 * The request field a `<field>: <problem>` message starts with (`tools[2].function.name`,
 * `messages[0].content[1].type`), or the one SMG's `Invalid value for '<field>': …` texts name;
 * null when the text names no field.
 */
const FIELD_PREFIX = /^([A-Za-z_][\w]*(?:\[\d+\]|\.[A-Za-z_][\w]*)*): /;
const INVALID_VALUE_FOR = /^Invalid value for '([A-Za-z_][\w.]*)'/;

export function fieldOf(message: string): string | null {
  return FIELD_PREFIX.exec(message)?.[1] ?? INVALID_VALUE_FOR.exec(message)?.[1] ?? null;
}

/**
 * A 400 for a request field that fails validation. `invalid_value` is the one code of every such
 * failure (OpenAI's own code for a bad field value); `param` is the field, named by the caller or
 * read from a `<field>: <problem>` message.
 */
export function invalid(message: string, param: string | null = fieldOf(message)): PipelineError {
  return new PipelineError(400, 'invalid_value', message, true, param);
}

/** A body that is not JSON (request-pipeline §2.2(1)). */
export function jsonParseError(message: string): PipelineError {
  return new PipelineError(400, 'json_parse_error', message, true);
}

/**
 * A failure while submitting (before any response was sent), mapped as SMG maps client errors
 * (smg-newest §2.9): a dead engine is 503, a request the engine cannot take is 400, the rest 500.
 */
export function submitError(err: unknown): PipelineError {
  if (err instanceof PipelineError) return err;
  if (err instanceof EngineError) {
    if (err.kind === 'invalid') {
      if (err.message.startsWith('request `')) return new PipelineError(409, 'request_id_in_flight', err.message, false, 'rid');
      // The wire guard names the engine field it refused (`sampling_params.top_k`).
      return new PipelineError(400, 'invalid_request_parameters', `Invalid request parameters: ${err.message}`, true, err.field);
    }
    const status = err.kind === 'dead' ? 503 : 500;
    return new PipelineError(status, 'start_generation_failed', `Failed to start generation: ${err.message}`);
  }
  return new PipelineError(500, 'start_generation_failed', `Failed to start generation: ${(err as Error).message}`);
}

/** A failure while collecting a non-streaming response. */
export function streamError(err: unknown, workerUrl: string): PipelineError {
  if (err instanceof PipelineError) return err;
  if (err instanceof EngineError && err.kind === 'invalid') {
    return new PipelineError(400, 'invalid_request_parameters', `Invalid request parameters: ${err.message}`, true, err.field);
  }
  return new PipelineError(500, 'worker_stream_failed', `${workerUrl} stream failed: ${(err as Error).message}`);
}

/** The text of an error reported after a stream has started. */
export function streamErrorText(err: unknown): string {
  return `Stream error: ${(err as Error).message}`;
}
