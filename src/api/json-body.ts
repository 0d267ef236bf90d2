import { jsonParseError } from '../pipeline/errors.js';

/** A request body's JSON text as the gateway reads it. */
export function parseJsonText(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** A request's JSON body, with SMG's body-parse texts (request-pipeline §2.2(1)). */
export async function readJsonBody(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().includes('application/json')) throw jsonParseError('Missing Content-Type: application/json header');
  const text = await request.text();
  try {
    return parseJsonText(text);
  } catch (err) {
    throw jsonParseError(`JSON syntax error: ${(err as Error).message}`);
  }
}
