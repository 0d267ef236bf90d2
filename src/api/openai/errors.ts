/**
 * The one error envelope of every non-Anthropic path (`/v1/*`, `/generate`, `/workers*`,
 * `/flush_cache`, unknown routes): OpenAI's `{"error": {"message", "type", "param", "code"}}`,
 * plus the `X-SMG-Error-Code: <code>` header.
 *
 * - `type` follows the HTTP status, in OpenAI's vocabulary (`invalid_request_error` for client
 *   errors, `server_error` for 500, https://platform.openai.com/docs/guides/error-codes) with the
 *   classes OpenAI's SDKs name for the other statuses (authentication, permission, not found,
 *   rate limit, timeout, unavailable).
 * - `code` is always a snake_case string (never the number 400 SMG's validator emits): the
 *   PipelineError's code, e.g. `invalid_value`, `model_not_found`, `context_length_exceeded`.
 * - `param` names the request field at fault, or null.
 *
 * SMG's message texts are kept as they are (request-pipeline §2.2, §3.1.3).
 */
import { codeForStatus } from '../status-code.js';
import { STATUS_CODES } from 'node:http';
import type { PipelineError } from '../../pipeline/errors.js';

export type OpenAiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'server_error'
  | 'not_implemented_error'
  | 'service_unavailable_error';

export function openaiErrorType(status: number): OpenAiErrorType {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 408:
    case 504:
      return 'timeout_error';
    case 429:
      return 'rate_limit_error';
    case 501:
      return 'not_implemented_error';
    case 503:
      return 'service_unavailable_error';
    default:
      return status < 500 ? 'invalid_request_error' : 'server_error';
  }
}

export interface OpenAiErrorBody {
  error: { message: string; type: OpenAiErrorType; param: string | null; code: string };
}

export function openaiEnvelope(status: number, code: string, message: string, param: string | null = null): OpenAiErrorBody {
  return { error: { message, type: openaiErrorType(status), param, code } };
}

/** An error response in the envelope; the code also goes in `X-SMG-Error-Code` for operators and metrics. */
export function openaiErrorJson(status: number, code: string, message: string, param: string | null = null, headers: HeadersInit = {}): Response {
  const h = new Headers(headers);
  h.set('X-SMG-Error-Code', code);
  return Response.json(openaiEnvelope(status, code, message, param), { status, headers: h });
}

export function openaiErrorBody(err: PipelineError): OpenAiErrorBody {
  return openaiEnvelope(err.status, err.code, err.message, err.param);
}

export function openaiErrorResponse(err: PipelineError): Response {
  return openaiErrorJson(err.status, err.code, err.message, err.param);
}

/**
 * The SSE payload that reports a failure after the stream has started (status stays 200): the
 * same envelope, so a client parses one shape whether the failure came before or after the 200.
 */
export function sseErrorFrame(message: string, code = 'stream_error'): string {
  return JSON.stringify(openaiEnvelope(500, code, message));
}

/** Messages for error responses that arrive without one (a body-less 401). */
const DEFAULT_MESSAGES: Record<number, string> = {
  401: 'Missing or invalid API key: send it as `Authorization: Bearer <key>` or `x-api-key: <key>`',
};

function isEnvelope(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const e = (v as { error?: unknown }).error;
  return e !== null && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string' && typeof (e as { code?: unknown }).code === 'string';
}

/**
 * An error response produced outside the protocol handlers (a middleware's empty 401, a route's
 * plain-text refusal), re-encoded in the envelope with its status and headers kept. Responses
 * already in the envelope, and non-errors, pass through untouched.
 */
export async function asOpenAiError(res: Response): Promise<Response> {
  if (res.status < 400) return res;
  const text = await res.clone().text();
  let message = text.trim();
  try {
    const v = JSON.parse(text) as unknown;
    if (isEnvelope(v)) return res;
    const e = (v as { error?: unknown } | null)?.error;
    if (typeof e === 'string') message = e;
    else if (e !== null && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
      message = (e as { message: string }).message;
    }
  } catch {
    // Plain text (or nothing): that text is the message.
  }
  if (!message) message = DEFAULT_MESSAGES[res.status] ?? STATUS_CODES[res.status] ?? 'Error';
  const code = res.headers.get('X-SMG-Error-Code') ?? codeForStatus(res.status);
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  headers.set('X-SMG-Error-Code', code);
  return new Response(JSON.stringify(openaiEnvelope(res.status, code, message)), { status: res.status, headers });
}
