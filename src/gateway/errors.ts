/**
 * The gateway's own error responses (worker API, admin, middleware refusals, unknown routes): the
 * same envelope as the OpenAI paths, `{"error":{message,type,param,code}}` + `X-SMG-Error-Code`
 * (src/api/openai/errors.ts). On the Messages paths they are re-encoded in Anthropic's envelope.
 */
import { openaiErrorJson } from '../api/openai/errors.js';

export function gatewayError(status: number, code: string, message: string, param: string | null = null, headers: HeadersInit = {}): Response {
  return openaiErrorJson(status, code, message, param, headers);
}
