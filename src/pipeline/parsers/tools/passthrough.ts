/** `passthrough`: no tool parsing; all output is text (request-pipeline §11.3, the no-match default). */
import type { ParsedItem, StreamingParser } from '../types.js';
import type { ToolParserSpec } from './types.js';

class PassthroughParser implements StreamingParser {
  push(delta: string): ParsedItem[] {
    return delta.length > 0 ? [{ kind: 'text', text: delta }] : [];
  }

  finish(): ParsedItem[] {
    return [];
  }
}

export const passthroughToolParser: ToolParserSpec = {
  name: 'passthrough',
  create: () => new PassthroughParser(),
  parse: (text) => (text.length > 0 ? [{ kind: 'text', text }] : []),
};
