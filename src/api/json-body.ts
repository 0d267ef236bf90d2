import type { InferenceRequest } from './types.js';
import { jsonParseError } from '../pipeline/errors.js';
import { jsonDepthProblem } from '../util/json-depth.js';
import { parseJsonText } from '../pipeline/chat-prompt/template-compiler/python-json.js';
import { LARGE_BODY_CHARS, parseLargeJsonBody } from './large-json-body.js';

export { parseJsonText };

/**
 * A request's JSON body, with SMG's body-parse texts (request-pipeline §2.2(1)). Numbers and key
 * orders JSON.parse would change are kept beside the values for chat templates (python-json.ts).
 */
export async function readJsonBody(request: InferenceRequest): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.toLowerCase().includes('application/json')) throw jsonParseError('Missing Content-Type: application/json header');
  const text = await request.text();
  // A long prompt's body is parsed in slices that let the loop turn (large-json-body.ts).
  if (text.length >= LARGE_BODY_CHARS) return parseLargeJsonBody(text);
  // Checked on the text, before a value exists that anything could walk (json-depth.ts).
  const tooDeep = jsonDepthProblem(text);
  if (tooDeep) throw jsonParseError(`JSON syntax error: ${tooDeep}`);
  try {
    return parseJsonText(text);
  } catch (err) {
    throw jsonParseError(`JSON syntax error: ${(err as Error).message}`);
  }
}
