/**
 * Responses `metadata`, which every response object echoes back. OpenAI's API reference bounds it:
 * "Set of 16 key-value pairs that can be attached to an object. […] Keys are strings with a maximum
 * length of 64 characters. Values are strings with a maximum length of 512 characters."
 * (openai/openai-openapi, `Metadata` schema; the same text on platform.openai.com/docs/api-reference
 * /responses/create). Holding to it keeps what the gateway echoes small and flat, whatever is sent.
 */
import { invalid } from '../../pipeline/errors.js';

export const METADATA_MAX_PAIRS = 16;
export const METADATA_MAX_KEY_CHARS = 64;
export const METADATA_MAX_VALUE_CHARS = 512;

/** The checked metadata: a copy holding only string values; `{}` when absent or null. */
export function checkMetadata(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('metadata: must be an object of string values', 'metadata');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > METADATA_MAX_PAIRS) {
    throw invalid(`metadata: at most ${METADATA_MAX_PAIRS} key-value pairs, got ${entries.length}`, 'metadata');
  }
  const out: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (key.length > METADATA_MAX_KEY_CHARS) {
      throw invalid(`metadata: keys are at most ${METADATA_MAX_KEY_CHARS} characters, got one of ${key.length}`, 'metadata');
    }
    if (typeof value !== 'string') throw invalid(`metadata.${key}: must be a string`, `metadata.${key}`);
    if (value.length > METADATA_MAX_VALUE_CHARS) {
      throw invalid(`metadata.${key}: at most ${METADATA_MAX_VALUE_CHARS} characters, got ${value.length}`, `metadata.${key}`);
    }
    out[key] = value;
  }
  return out;
}
