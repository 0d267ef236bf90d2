/**
 * The two error shapes of the HTTP surface: `{error, code}` on worker routes, and the gateway
 * envelope `{"error":{type,code,message,param:null}}` + `X-SMG-Error-Code` everywhere else.
 */
import { STATUS_CODES } from 'node:http';

export function workerRouteError(status: number, code: string, message: string): Response {
  return Response.json({ error: message, code }, { status });
}

export function gatewayError(status: number, code: string, message: string): Response {
  return Response.json(
    { error: { type: STATUS_CODES[status] ?? 'Error', code, message, param: null } },
    { status, headers: { 'X-SMG-Error-Code': code } },
  );
}
