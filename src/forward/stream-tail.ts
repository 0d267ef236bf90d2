/**
 * The clean end of an event stream whose upstream broke after bytes reached the client: the
 * status (200) is gone, so the failure is told in the stream's own terms, as the pipeline does
 * when an engine dies mid-stream — OpenAI paths an error `data:` frame then `[DONE]`, Messages an
 * Anthropic `event: error`, Responses an `error` event. A JSON body cut short cannot be mended:
 * the connection is reset so the client sees a truncated response, never a wrong one.
 */
import type { InferenceEndpoint } from '../api/types.js';
import { sseErrorFrame } from '../api/openai/errors.js';
import { anthropicSseErrorFrame } from '../api/anthropic/errors.js';

export function streamTailError(endpoint: InferenceEndpoint, message: string): string {
  const text = `Stream error: ${message}`;
  switch (endpoint) {
    case 'messages':
      return anthropicSseErrorFrame(text);
    case 'responses':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'stream_error', message: text, param: null })}\n\n`;
    default:
      return `data: ${sseErrorFrame(text)}\n\ndata: [DONE]\n\n`;
  }
}

/** Bytes that close a frame cut mid-way, so the error frame parses as a frame of its own. */
export function frameBoundary(lastBytes: string): string {
  if (lastBytes === '' || lastBytes.endsWith('\n\n')) return '';
  return lastBytes.endsWith('\n') ? '\n' : '\n\n';
}
