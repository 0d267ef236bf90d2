/**
 * Anthropic's error envelope, `{"type":"error","error":{"type","message"},"request_id"}`, with the
 * error type Anthropic uses for each HTTP status (https://docs.anthropic.com/en/api/errors), for
 * pipeline failures, for failures after the stream started (request-pipeline §2.2(6)), and for
 * the gateway's own refusals on the Messages paths (auth, body size, concurrency, draining).
 */
import { codeForStatus } from '../status-code.js';
import { STATUS_CODES } from 'node:http';
import type { PipelineError } from '../../pipeline/errors.js';

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'api_error'
  | 'overloaded_error';

export function anthropicErrorType(status: number): AnthropicErrorType {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 408:
    case 504:
      return 'timeout_error';
    // Anthropic answers overload with 529; a gateway with no ready engine (503) is the same to a client.
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return status < 500 ? 'invalid_request_error' : 'api_error';
  }
}

export function anthropicErrorBody(status: number, message: string, requestId?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { type: 'error', error: { type: anthropicErrorType(status), message } };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

export function anthropicErrorResponse(err: PipelineError, requestId: string): Response {
  // The SMG error code stays visible to operators, as on the OpenAI routes.
  return Response.json(anthropicErrorBody(err.status, err.message, requestId), { status: err.status, headers: { 'X-SMG-Error-Code': err.code } });
}

/** The frame that reports a failure after the stream started; no `[DONE]` follows. */
export function anthropicSseErrorFrame(message: string): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`;
}

const DEFAULT_MESSAGES: Record<number, string> = {
  401: 'invalid x-api-key',
  404: 'The requested resource could not be found.',
};

/** The text of an error response in another shape: the gateway envelope's message, or its plain text. */
function messageOf(text: string, status: number): string {
  try {
    const v = JSON.parse(text) as { error?: { message?: unknown } | string };
    if (typeof v.error === 'object' && typeof v.error?.message === 'string') return v.error.message;
    if (typeof v.error === 'string') return v.error;
  } catch {
    if (text.trim()) return text.trim();
  }
  return DEFAULT_MESSAGES[status] ?? STATUS_CODES[status] ?? 'Error';
}

/**
 * An error response produced outside the Messages handler (middleware, unknown method), re-encoded
 * in Anthropic's envelope with its status and headers kept; other responses pass through.
 */
export async function asAnthropicError(res: Response, requestId: string): Promise<Response> {
  if (res.status < 400) return res;
  const text = await res.clone().text();
  try {
    if ((JSON.parse(text) as { type?: unknown }).type === 'error') return res;
  } catch {
    // Not JSON: re-encoded below.
  }
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  // The SMG code travels only in this header here (Anthropic's envelope has no `code`).
  if (!headers.has('X-SMG-Error-Code')) headers.set('X-SMG-Error-Code', codeForStatus(res.status));
  return new Response(JSON.stringify(anthropicErrorBody(res.status, messageOf(text, res.status), requestId)), {
    status: res.status,
    headers,
  });
}
