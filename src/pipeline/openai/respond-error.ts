import { EngineError } from '../../engine/client-types.js';
import { ApiError } from './errors.js';

export function apiErrorResponse(err: ApiError): Response {
  return Response.json(err.body(), { status: err.status, headers: err.headers() });
}

/**
 * A failure while submitting (before any response was sent), mapped as SMG maps client errors
 * (smg-newest §2.9): a dead engine is 503, a request the engine cannot take is 400, the rest 500.
 */
export function submitError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof EngineError) {
    if (err.kind === 'invalid') {
      if (err.message.startsWith('request `')) return new ApiError(409, 'request_id_in_flight', err.message);
      return new ApiError(400, 'invalid_request_parameters', `Invalid request parameters: ${err.message}`);
    }
    const status = err.kind === 'dead' ? 503 : 500;
    return new ApiError(status, 'start_generation_failed', `Failed to start generation: ${err.message}`);
  }
  return new ApiError(500, 'start_generation_failed', `Failed to start generation: ${(err as Error).message}`);
}

/** A failure while collecting a non-streaming response. */
export function streamError(err: unknown, workerUrl: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof EngineError && err.kind === 'invalid') {
    return new ApiError(400, 'invalid_request_parameters', `Invalid request parameters: ${err.message}`);
  }
  return new ApiError(500, 'worker_stream_failed', `${workerUrl} stream failed: ${(err as Error).message}`);
}

/** The text of an error frame sent after an SSE stream has started. */
export function streamErrorText(err: unknown): string {
  return `Stream error: ${(err as Error).message}`;
}
