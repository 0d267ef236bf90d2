/**
 * OpenAI's error envelopes on /v1/*, as SMG emits them (request-pipeline §2.2): validation failures
 * use `type: "invalid_request_error"` with the numeric code 400 (a body parse failure keeps its
 * string code); everything the pipeline raises later carries the HTTP reason phrase as `type`, a
 * snake_case `code`, and the `X-SMG-Error-Code` header.
 */
import { STATUS_CODES } from 'node:http';
import type { PipelineError } from '../../pipeline/errors.js';

export function openaiErrorBody(err: PipelineError): Record<string, unknown> {
  if (err.validation) {
    const code = err.code === 'json_parse_error' ? err.code : 400;
    return { error: { message: err.message, type: 'invalid_request_error', code } };
  }
  return { error: { type: STATUS_CODES[err.status] ?? 'Error', code: err.code, message: err.message, param: null } };
}

export function openaiErrorResponse(err: PipelineError): Response {
  const headers: Record<string, string> = err.validation ? {} : { 'X-SMG-Error-Code': err.code };
  return Response.json(openaiErrorBody(err), { status: err.status, headers });
}

/** The SSE payload that reports a failure after the stream has started (status stays 200). */
export function sseErrorFrame(message: string): string {
  return JSON.stringify({ error: { message, type: 'internal_error' } });
}
