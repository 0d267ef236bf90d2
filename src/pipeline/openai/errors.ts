/**
 * Errors a client sees on /v1/*. Two envelopes, as SMG emits them (request-pipeline §2.2):
 * validation failures use `type: "invalid_request_error"` with the numeric code 400; everything the
 * pipeline raises later carries the HTTP reason phrase as `type`, a snake_case `code`, and the
 * `X-SMG-Error-Code` header — the envelope of `gatewayError` (src/gateway/errors.ts), with the
 * reason phrase taken from the same table.
 */
import { STATUS_CODES } from 'node:http';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Validation failures use the `invalid_request_error` envelope. */
    readonly validation = false,
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    if (this.validation) {
      // Body parse failures keep their string code (§2.2(1)); field validation uses the number 400.
      const code = this.code === 'json_parse_error' ? this.code : 400;
      return { error: { message: this.message, type: 'invalid_request_error', code } };
    }
    return {
      error: { type: STATUS_CODES[this.status] ?? 'Error', code: this.code, message: this.message, param: null },
    };
  }

  headers(): Record<string, string> {
    return this.validation ? {} : { 'X-SMG-Error-Code': this.code };
  }
}

/** A 400 for a request field that fails validation. */
export function invalid(message: string): ApiError {
  return new ApiError(400, 'invalid_request_error', message, true);
}

/** The SSE frame that reports a failure after the stream has started (status stays 200). */
export function sseErrorFrame(message: string): string {
  return JSON.stringify({ error: { message, type: 'internal_error' } });
}
