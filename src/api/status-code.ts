import { STATUS_CODES } from 'node:http';

/**
 * The SMG error code (`X-SMG-Error-Code`, and `code` in the OpenAI envelope) of an error response
 * that carries none, such as a middleware's empty 401: named after its status.
 */
export function codeForStatus(status: number): string {
  switch (status) {
    case 401:
      return 'invalid_api_key';
    case 404:
      return 'not_found';
    case 413:
      return 'request_too_large';
    default:
      return (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
  }
}
