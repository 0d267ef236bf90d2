import { jsonParseError } from '../pipeline/errors.js';
import { jsonDepthProblem } from '../util/json-depth.js';

/** A request's JSON body, with SMG's body-parse texts (request-pipeline §2.2(1)). */
export async function readJsonBody(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().includes('application/json')) throw jsonParseError('Missing Content-Type: application/json header');
  const text = await request.text();
  // Checked on the text, before a value exists that anything could walk (json-depth.ts).
  const tooDeep = jsonDepthProblem(text);
  if (tooDeep) throw jsonParseError(`JSON syntax error: ${tooDeep}`);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw jsonParseError(`JSON syntax error: ${(err as Error).message}`);
  }
}
